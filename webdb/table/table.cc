#include "webdb/table/table.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "webdb/table/block.h"
#include "webdb/util/coding.h"
#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

// Sequential scans read this much (whole blocks) per read call.
constexpr uint64_t kReadaheadSize = 1 << 20;

Status Corruption(const std::string& path, std::string_view what, uint64_t offset) {
  return Status::Corruption(path + ": " + std::string(what) + " at offset " +
                            std::to_string(offset));
}

// Reads exactly n bytes at offset; Corruption when the file ends first.
Result<std::string_view> ReadExact(const nutchfs::RandomAccessFile& file, uint64_t offset, size_t n,
                                   char* scratch) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, file.Read(offset, n, scratch));
  if (got.size() != n) {
    return nutchfs::Err(Corruption(file.path(),
                                   "file truncated: read " + std::to_string(got.size()) + " of " +
                                       std::to_string(n) + " bytes",
                                   offset));
  }
  return got;
}

// The entries of a table file's index block, front to back, read in pieces of
// kIndexReadSize with the block's checksum taken as they come: memory for one piece,
// whatever the index's size. An entry found malformed is reported as such only if the
// whole block matches its checksum (Fail reads the rest first); otherwise the block is
// reported as damaged, a checksum mismatch, as when the index was read whole.
class IndexBlockStream {
 public:
  struct Entry {
    std::string_view key;    // views valid until the next call to Next()
    BlockHandle handle;
    std::string_view bytes;  // the entry as stored
    uint64_t offset = 0;     // where it is in the file
  };

  IndexBlockStream(const nutchfs::RandomAccessFile& file, const BlockHandle& index)
      : file_(file), begin_(index.offset), end_(index.offset + index.size),
        buf_offset_(index.offset), read_to_(index.offset) {}

  // Reads the block's trailer.
  Status Start() {
    char scratch[kBlockTrailerSize];
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view trailer,
                             ReadExact(file_, end_, kBlockTrailerSize, scratch));
    if (static_cast<uint8_t>(trailer[0]) != kBlockTypeNone) {
      return Corruption(file_.path(),
                        "unknown block type " +
                            std::to_string(static_cast<uint8_t>(trailer[0])) + " in block",
                        begin_);
    }
    stored_crc_ = crc32c::Unmask(DecodeFixed32(trailer.data() + 1));
    return Status::OK();
  }

  // The next entry; false after the last one.
  Result<bool> Next(Entry* e) {
    for (;;) {
      std::string_view in(buf_.data() + pos_, buf_.size() - pos_);
      e->offset = buf_offset_ + pos_;
      if (GetIndexEntry(&in, &e->key, &e->handle)) {
        const size_t size = buf_.size() - pos_ - in.size();
        e->bytes = std::string_view(buf_.data() + pos_, size);
        pos_ += size;
        return true;
      }
      // An entry cut at the end of what was read: drop what is parsed and read on.
      buf_.erase(0, pos_);
      buf_offset_ += pos_;
      pos_ = 0;
      NUTCHFS_ASSIGN_OR_RETURN(bool more, ReadMore());
      if (more) continue;
      if (buf_.empty()) return false;
      return Err(Fail("malformed index entry", e->offset));
    }
  }

  // After the last entry: Corruption if the block does not match its checksum.
  Status Finish() {
    if (Matches()) return Status::OK();
    return Corruption(file_.path(), "block checksum mismatch", begin_);
  }

  // Corruption `what` at offset, unless the block does not match its checksum.
  Status Fail(std::string_view what, uint64_t offset) {
    for (;;) {
      buf_.clear();
      pos_ = 0;
      buf_offset_ = read_to_;
      Result<bool> more = ReadMore();
      if (!more) return more.error();
      if (!*more) break;
    }
    if (!Matches()) return Corruption(file_.path(), "block checksum mismatch", begin_);
    return Corruption(file_.path(), what, offset);
  }

 private:
  static constexpr size_t kIndexReadSize = 1 << 20;

  // Reads the next piece after what buf_ holds; false when the block is read to its end.
  Result<bool> ReadMore() {
    if (read_to_ == end_) return false;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kIndexReadSize, end_ - read_to_));
    const size_t had = buf_.size();
    buf_.resize(had + n);
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view got,
                             ReadExact(file_, read_to_, n, buf_.data() + had));
    if (got.data() != buf_.data() + had) std::memmove(buf_.data() + had, got.data(), n);
    crc_ = crc32c::Extend(crc_, buf_.data() + had, n);
    read_to_ += n;
    return true;
  }

  bool Matches() const {
    const char type = static_cast<char>(kBlockTypeNone);
    return crc32c::Extend(crc_, &type, 1) == stored_crc_;
  }

  const nutchfs::RandomAccessFile& file_;
  const uint64_t begin_;  // where the block's entries begin
  const uint64_t end_;    // and end (its trailer starts)
  std::string buf_;       // bytes read and not yet dropped, from buf_offset_
  uint64_t buf_offset_;
  size_t pos_ = 0;        // where the next entry starts in buf_
  uint64_t read_to_;      // where the next piece starts
  uint32_t crc_ = 0;      // of the bytes up to read_to_
  uint32_t stored_crc_ = 0;
};

}  // namespace

Result<Footer> ReadTableFooter(const nutchfs::RandomAccessFile& file) {
  const uint64_t size = file.size();
  if (size < kFooterSizeV1) {
    return nutchfs::Err(Corruption(
        file.path(), "file too short for a table (" + std::to_string(size) + " bytes)", 0));
  }
  const uint64_t tail_size = std::min<uint64_t>(size, kFooterSize);
  char scratch[kFooterSize];
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view tail,
                           ReadExact(file, size - tail_size, tail_size, scratch));
  NUTCHFS_ASSIGN_OR_RETURN(Footer footer, DecodeFooter(tail, file.path(), size - tail_size));
  const uint64_t room = size - footer.encoded_size();
  const BlockHandle& index = footer.index;
  if (index.offset > room || index.size > room - index.offset ||
      room - index.offset - index.size != kBlockTrailerSize) {
    return nutchfs::Err(
        Corruption(file.path(), "index block does not end at the footer: footer", room));
  }
  bool counts_ok = footer.num_records >= footer.num_blocks &&
                   (footer.num_blocks > 0 || footer.num_records == 0) &&
                   footer.num_blocks <= index.offset / (kBlockTrailerSize + 3);
  if (!counts_ok) {
    return nutchfs::Err(Corruption(file.path(), "impossible record or block count in footer", room));
  }
  return footer;
}

// Iterates a table's data blocks in order, across its parts, within a key range.
class Table::Iter final : public Iterator {
 public:
  Iter(const Table* table, const KeyRange& range)
      : table_(table), index_(*table), lower_(range.lower), upper_(range.upper) {
    // Blocks lie in the range from the one after the last block that ends below lower_
    // (its rows are above that block's last key) to the one before the block that ends
    // at or above upper_ (the block the range ends in).
    upper_block_ = table_->num_blocks();
    Result<uint64_t> lower = index_.FirstBlockEndingAtOrAbove(lower_);
    Result<uint64_t> upper = upper_ ? index_.FirstBlockEndingAtOrAbove(*upper_) : upper_block_;
    if (!lower || !upper) {
      range_status_ = !lower ? lower.error() : upper.error();
      return;
    }
    if (!lower_.empty()) lower_block_ = *lower + 1;
    upper_block_ = *upper;
  }

  bool Valid() const override { return valid_; }
  void SeekToFirst() override;
  void Seek(std::string_view target) override;
  void Next() override;
  std::string_view key() const override { return reader_.key(); }
  std::string_view value() const override { return reader_.value(); }
  Status status() const override { return status_; }
  std::optional<BlockStart> AtBlockStart() const override;
  std::optional<RawBlock> CurrentBlock() const override;
  void SkipBlock() override;
  std::optional<BlockStart> BlockAt(uint64_t index) const override;
  void SkipToBlock(uint64_t index) override;
  uint64_t SkipRowsSharing(size_t n) override;
  std::optional<uint64_t> BlockIndex() const override;
  Status MoveRowsInBlock(std::optional<std::string_view> limit, RowSink* sink,
                         uint64_t* moved) override;

 private:
  void Restart(bool counting);
  void EnterBlock(uint64_t index, bool readahead);
  bool FinishBlock();
  bool LoadBlock(uint64_t index, bool readahead);
  bool ReadRange(size_t part, uint64_t offset, uint64_t n);
  void Fail(Status s);
  // Where the scan has left the range: the current row is at or above upper_ (only
  // possible in the block the range ends in).
  bool PastRange() const { return block_ == upper_block_ && upper_ && reader_.key() >= *upper_; }
  // SkipRowsSharing one row at a time, in the block the range ends in: the rows after the
  // current one that it moves past.
  uint64_t SkipRowsSharingInLastBlock();
  Status CorruptionInBlock(std::string_view what) const {
    Result<BlockHandle> h = index_.Handle(block_);
    return Corruption(table_->path(part_), what, h ? h->offset : 0);
  }
  // The last key of block i from the index; nullopt (the iterator failed) when the
  // index cannot be read.
  std::optional<std::string_view> LastKey(uint64_t i);

  const Table* const table_;
  // The table's index, a group at a time; mutable: const methods read blocks' last keys.
  mutable IndexReader index_;
  const std::string lower_;
  const std::optional<std::string> upper_;
  uint64_t lower_block_ = 0;  // the first block whose rows all lie at or above lower_
  uint64_t upper_block_ = 0;  // the block the range ends in (num_blocks(): none)
  std::unique_ptr<char[]> scratch_;
  size_t scratch_size_ = 0;
  std::string_view buf_;  // bytes read from part buf_part_, starting at buf_offset_
  size_t buf_part_ = 0;
  uint64_t buf_offset_ = 0;
  uint64_t block_ = 0;  // index of the block reader_ decodes
  size_t part_ = 0;     // the part block_ is in
  BlockReader reader_;
  bool valid_ = false;
  mutable uint64_t block_records_ = 0;  // of block_, once CurrentBlock() counted them
  bool counting_ = false;  // scanning from the first record: check the record counts
  // The block was loaded by a seek: the one after it is read alone, not with the blocks
  // after it (a sparse reader seeks on rather than scanning; one that scans on reads
  // ahead again from the block after that).
  bool sought_ = false;
  uint64_t seen_ = 0;
  std::string prefix_;    // of the rows SkipRowsSharing() moves past
  Status range_status_;   // of finding the range's blocks in the index
  Status status_;
};

std::optional<std::string_view> Table::Iter::LastKey(uint64_t i) {
  Result<std::string_view> key = index_.LastKey(i);
  if (key) return *key;
  Fail(key.error());
  return std::nullopt;
}

void Table::Iter::Restart(bool counting) {
  valid_ = false;
  maybe_at_block_start_ = false;
  status_ = range_status_;
  counting_ = counting;
  sought_ = false;
  seen_ = 0;
}

void Table::Iter::SeekToFirst() {
  if (!lower_.empty() || upper_) return Seek(lower_);
  Restart(true);
  if (status_.ok()) EnterBlock(0, true);
}

// A target ahead of the current row within its block is reached by reading on from the
// row (seeks in key order, a stage's, read each block once); any other reads the block
// that holds it.
void Table::Iter::Seek(std::string_view target) {
  if (target < lower_) target = lower_;
  if (valid_ && reader_.key() < target) {
    const std::optional<std::string_view> last = LastKey(block_);
    if (!last) return;
    if (target <= *last) {
      counting_ = false;
      maybe_at_block_start_ = false;
      uint64_t passed = 0;
      valid_ = reader_.NextAtOrAbove(target, &passed);
      if (valid_) {
        valid_ = !PastRange();
        return;
      }
      if (!reader_.status().ok()) return Fail(reader_.status());
      return Fail(CorruptionInBlock("keys of the block disagree with its index key: block"));
    }
  }
  Restart(false);
  if (!status_.ok()) return;
  Result<uint64_t> found = index_.FirstBlockEndingAtOrAbove(target);
  if (!found) return Fail(found.error());
  const uint64_t index = *found;
  if (index == table_->num_blocks() || index > upper_block_) return;
  if (!LoadBlock(index, false)) return;
  sought_ = true;
  const std::optional<std::string_view> last = LastKey(index);
  if (!last) return;
  valid_ = reader_.Seek(target) && reader_.key() <= *last;
  if (valid_) {
    valid_ = !PastRange();
    return;
  }
  if (!reader_.status().ok()) return Fail(reader_.status());
  Fail(CorruptionInBlock("keys of the block disagree with its index key: block"));
}

void Table::Iter::Next() {
  if (!valid_) return;
  maybe_at_block_start_ = false;
  valid_ = reader_.Next();
  if (valid_) {
    ++seen_;
    valid_ = !PastRange();
    return;
  }
  if (FinishBlock()) EnterBlock(block_ + 1, true);
}

// Positions at the first record of block index, or past the end when there is none (or
// the range ends before it). A full scan that leaves a part checks its record count.
void Table::Iter::EnterBlock(uint64_t index, bool readahead) {
  valid_ = false;
  if (counting_ && index > 0) {
    const size_t done = table_->PartOf(index - 1);
    if (index == table_->num_blocks() || table_->PartOf(index) != done) {
      const Part& p = table_->parts_[done];
      if (seen_ != p.records_through) {
        const uint64_t in_part = seen_ - (p.records_through - p.footer.num_records);
        return Fail(Corruption(p.file->path(),
                               "scan found " + std::to_string(in_part) + " records, footer says " +
                                   std::to_string(p.footer.num_records) + ": footer",
                               p.file->size() - p.footer.encoded_size()));
      }
    }
  }
  if (index == table_->num_blocks() || index > upper_block_) return;
  if (!LoadBlock(index, readahead && !sought_)) return;
  sought_ = false;
  if (!reader_.Next()) {
    if (!reader_.status().ok()) return Fail(reader_.status());
    return Fail(CorruptionInBlock("empty data block"));
  }
  if (index > 0) {
    const std::optional<std::string_view> before = LastKey(index - 1);
    if (!before) return;
    if (reader_.key() <= *before) {
      return Fail(
          CorruptionInBlock("first key not greater than the previous block's last key: block"));
    }
  }
  ++seen_;
  valid_ = !PastRange();
  maybe_at_block_start_ = valid_;
}

// The block's index entries were read to load it: neither reads the index. Were they
// not, no block would be offered, and the next move would fail on the index.
std::optional<BlockStart> Table::Iter::AtBlockStart() const {
  if (!valid_ || !maybe_at_block_start_ || block_ < lower_block_ || block_ >= upper_block_) {
    return std::nullopt;
  }
  Result<std::string_view> last = index_.LastKey(block_);
  if (!last) return std::nullopt;
  return BlockStart{block_, *last};
}

std::optional<RawBlock> Table::Iter::CurrentBlock() const {
  const std::optional<BlockStart> start = AtBlockStart();
  if (!start) return std::nullopt;
  Result<BlockHandle> h = index_.Handle(block_);
  if (!h) return std::nullopt;
  std::string_view raw = buf_.substr(h->offset - buf_offset_, h->end() - h->offset);
  std::optional<uint64_t> records = CountBlockRecords(raw.substr(0, h->size));
  if (!records) return std::nullopt;
  block_records_ = *records;
  return RawBlock{raw, reader_.key(), start->last_key, *records, block_};
}

void Table::Iter::SkipBlock() {
  seen_ += block_records_ - 1;  // the first was counted on entering the block
  EnterBlock(block_ + 1, true);
}

// A block of another group of the index reads that group; if it cannot be read, no
// block is offered, and entering it fails.
std::optional<BlockStart> Table::Iter::BlockAt(uint64_t index) const {
  if (index < lower_block_ || index >= upper_block_) return std::nullopt;
  Result<std::string_view> last = index_.LastKey(index);
  if (!last) return std::nullopt;
  return BlockStart{index, *last};
}

void Table::Iter::SkipToBlock(uint64_t index) {
  counting_ = false;  // the rows of the blocks skipped are not counted
  EnterBlock(index, true);
}

std::optional<uint64_t> Table::Iter::BlockIndex() const {
  if (!valid_) return std::nullopt;
  return block_;
}

// With a sink, the sink takes the rows below the limit as they are stored, parsing each
// once (for its bounds, its key's order and its place against the limit), and the reader
// resumes after them; without, the reader decodes them to find the limit. The block's end
// is checked against the index as Next() checks it.
Status Table::Iter::MoveRowsInBlock(std::optional<std::string_view> limit, RowSink* sink,
                                    uint64_t* moved) {
  *moved = 0;
  if (!valid_) return Status::OK();
  maybe_at_block_start_ = false;
  if (block_ == upper_block_ && upper_ && (!limit || *upper_ < *limit)) limit = *upper_;
  bool on_row = false;
  if (sink != nullptr) {
    Result<StoredRun> run = sink->AddStoredRun(reader_.key(), reader_.Rest(), limit);
    if (!run) {
      // A malformed record is this file's corruption, not the sink's.
      if (!run.error().IsCorruption()) return run.error();
      Fail(CorruptionInBlock(run.error().message() + ": block"));
      return Status::OK();
    }
    *moved = run->rows;
    on_row = reader_.NextAfter(run->bytes, run->last_key);
  } else {
    on_row = reader_.NextAtOrAbove(limit, moved);
  }
  seen_ += *moved;
  if (on_row) {
    ++seen_;
    valid_ = !PastRange();
    return Status::OK();
  }
  if (FinishBlock()) EnterBlock(block_ + 1, true);
  return Status::OK();
}

// Within a block, the reader moves past the records by their lengths; a block that ends
// in the run has its last key checked against the index as far as the lengths tell (the
// prefix and the size), and the run goes on into the next block while its keys do, from
// that block's first row (decoded: it stores its key whole). In the block the range ends
// in, rows are decoded one by one, to stop at the range's end.
uint64_t Table::Iter::SkipRowsSharing(size_t n) {
  if (!valid_) return 0;
  uint64_t moved = 1;
  if (reader_.key().size() < n) {
    Next();
    return moved;
  }
  prefix_.assign(reader_.key().substr(0, n));
  for (;;) {
    if (block_ == upper_block_) return moved + SkipRowsSharingInLastBlock();
    maybe_at_block_start_ = false;
    size_t last_size = 0;
    const uint64_t skipped = reader_.SkipSharing(n, &last_size);
    moved += skipped;
    seen_ += skipped;
    if (reader_.Next()) {
      ++seen_;
      return moved;
    }
    if (skipped == 0) {
      if (!FinishBlock()) return moved;
    } else if (!reader_.status().ok()) {
      Fail(reader_.status());
      return moved;
    } else if (const std::optional<std::string_view> last = LastKey(block_); !last) {
      return moved;
    } else if (last->size() != last_size || !last->starts_with(prefix_)) {
      Fail(CorruptionInBlock("last key differs from the index: block"));
      return moved;
    }
    EnterBlock(block_ + 1, true);
    if (!valid_ || !reader_.key().starts_with(prefix_)) return moved;
    ++moved;
  }
}

uint64_t Table::Iter::SkipRowsSharingInLastBlock() {
  uint64_t moved = 0;
  for (Next(); valid_ && reader_.key().starts_with(prefix_); Next()) ++moved;
  return moved;
}

// Called when reader_ has no more records: checks how the block ended.
bool Table::Iter::FinishBlock() {
  if (!reader_.status().ok()) {
    Fail(reader_.status());
    return false;
  }
  const std::optional<std::string_view> last = LastKey(block_);
  if (!last) return false;
  if (reader_.key() != *last) {
    Fail(CorruptionInBlock("last key differs from the index: block"));
    return false;
  }
  return true;
}

// Makes reader_ decode block index, reading it (and with readahead, the blocks after it
// in its group of the index, up to kReadaheadSize) unless it is already in buf_.
bool Table::Iter::LoadBlock(uint64_t index, bool readahead) {
  const size_t part = table_->PartOf(index);
  Result<BlockHandle> handle = index_.Handle(index);
  if (!handle) {
    Fail(handle.error());
    return false;
  }
  const BlockHandle h = *handle;
  if (part != buf_part_ || h.offset < buf_offset_ || h.end() > buf_offset_ + buf_.size()) {
    uint64_t end = h.end();
    const uint64_t group_end = table_->group_end(index);
    for (uint64_t j = index + 1; readahead && j < group_end; ++j) {
      Result<BlockHandle> next = index_.Handle(j);  // the group held: no read
      if (!next || next->end() - h.offset > kReadaheadSize) break;
      end = next->end();
    }
    if (!ReadRange(part, h.offset, end - h.offset)) return false;
  }
  std::string_view raw = buf_.substr(h.offset - buf_offset_, h.end() - h.offset);
  Result<std::string_view> contents = CheckBlockTrailer(raw, table_->path(part), h.offset);
  if (!contents) {
    Fail(contents.error());
    return false;
  }
  reader_.Reset(*contents, &table_->path(part), h.offset);
  block_ = index;
  part_ = part;
  return true;
}

bool Table::Iter::ReadRange(size_t part, uint64_t offset, uint64_t n) {
  buf_ = {};
  if (scratch_size_ < n) {
    scratch_.reset(new char[n]);
    scratch_size_ = n;
  }
  Result<std::string_view> got =
      ReadExact(*table_->parts_[part].file, offset, n, scratch_.get());
  if (!got) {
    Fail(got.error());
    return false;
  }
  buf_ = *got;
  buf_part_ = part;
  buf_offset_ = offset;
  return true;
}

void Table::Iter::Fail(Status s) {
  valid_ = false;
  status_ = std::move(s);
}

Result<std::unique_ptr<Table>> Table::Open(nutchfs::Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewRandomAccessFile(path));
  return Open(std::move(file));
}

Result<std::unique_ptr<Table>> Table::Open(std::unique_ptr<nutchfs::RandomAccessFile> file) {
  std::vector<std::unique_ptr<nutchfs::RandomAccessFile>> parts;
  parts.push_back(std::move(file));
  return Open(std::move(parts));
}

Result<std::unique_ptr<Table>> Table::Open(
    std::vector<std::unique_ptr<nutchfs::RandomAccessFile>> parts) {
  std::unique_ptr<Table> table(new Table());
  table->parts_.reserve(parts.size());
  for (auto& file : parts) NUTCHFS_RETURN_IF_ERROR(table->AddPart(std::move(file)));
  return table;
}

std::unique_ptr<Iterator> Table::NewIterator() const { return NewIterator(KeyRange{}); }

std::unique_ptr<Iterator> Table::NewIterator(const KeyRange& range) const {
  return std::make_unique<Iter>(this, range);
}

size_t Table::PartOf(uint64_t i) const {
  // The last part whose first block is not above i (an empty part shares its first block
  // number with the part after it, which is the one that holds the block).
  size_t lo = 0, hi = parts_.size();
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (parts_[mid].first_block <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

Status Table::AddPart(std::unique_ptr<nutchfs::RandomAccessFile> file) {
  Part part;
  part.file = std::move(file);
  NUTCHFS_ASSIGN_OR_RETURN(part.footer, ReadTableFooter(*part.file));
  part.first_block = num_blocks();
  num_records_ += part.footer.num_records;
  part.records_through = num_records_;
  parts_.push_back(std::move(part));
  return ReadIndex(parts_.size() - 1);
}

Status Table::ReadIndex(size_t p) {
  const Part& part = parts_[p];
  const Footer& footer = part.footer;
  const uint64_t index_offset = footer.index.offset;
  IndexBlockStream index(*part.file, footer.index);
  NUTCHFS_RETURN_IF_ERROR(index.Start());
  // Checked as when the index was held whole: each block's handle against the end of the
  // block before it, keys in order across the parts, the blocks covering the part.
  std::string previous;  // the last key of the block before, in this part or an earlier one
  bool has_previous = !groups_.empty();
  if (has_previous) previous = groups_.back().last_key;
  uint64_t expected = 0;  // where the next data block must start
  Group group;
  IndexBlockStream::Entry e;
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(bool more, index.Next(&e));
    if (!more) break;
    const BlockHandle& h = e.handle;
    if (h.offset != expected || h.size == 0 || h.size > index_offset - h.offset ||
        index_offset - h.offset - h.size < kBlockTrailerSize) {
      return index.Fail("index entry with a bad block handle", e.offset);
    }
    if (has_previous && e.key <= previous) return index.Fail("index keys out of order", e.offset);
    if (group.blocks == 0) {
      group = Group{};
      group.first_block = num_blocks_;
      group.part = p;
      group.entries_offset = e.offset;
      group.first_offset = h.offset;
    }
    group.entries_crc = crc32c::Extend(group.entries_crc, e.bytes.data(), e.bytes.size());
    group.entries_size += e.bytes.size();
    ++group.blocks;
    previous.assign(e.key);
    has_previous = true;
    expected = h.end();
    ++num_blocks_;
    if (group.blocks == kIndexGroup) {
      group.last_key = previous;
      groups_.push_back(std::move(group));
      group.blocks = 0;
    }
  }
  if (group.blocks > 0) {
    group.last_key = previous;
    groups_.push_back(std::move(group));
  }
  NUTCHFS_RETURN_IF_ERROR(index.Finish());
  if (expected != index_offset || num_blocks_ - part.first_block != footer.num_blocks) {
    return Corruption(part.file->path(), "index does not cover the data blocks: index",
                      index_offset);
  }
  return Status::OK();
}

size_t Table::GroupOf(uint64_t i) const {
  // The last group whose first block is not above i.
  auto after = std::upper_bound(groups_.begin(), groups_.end(), i,
                                [](uint64_t b, const Group& g) { return b < g.first_block; });
  return static_cast<size_t>(after - groups_.begin()) - 1;
}

Result<std::string> Table::BlockLastKey(uint64_t i) const {
  IndexReader index(*this);
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view key, index.LastKey(i));
  return std::string(key);
}

Result<BlockHandle> Table::BlockHandleOf(uint64_t i) const {
  IndexReader index(*this);
  return index.Handle(i);
}

Status Table::IndexReader::Load(size_t g) {
  if (g == group_) return Status::OK();
  group_ = SIZE_MAX;
  const Group& group = table_.groups_[g];
  const nutchfs::RandomAccessFile& file = *table_.parts_[group.part].file;
  entries_.resize(group.entries_size);
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, ReadExact(file, group.entries_offset,
                                                           group.entries_size, entries_.data()));
  if (got.data() != entries_.data()) std::memmove(entries_.data(), got.data(), got.size());
  if (crc32c::Value(entries_) != group.entries_crc) {
    return Corruption(file.path(),
                      "index entries differ from those read when the table was opened: entry",
                      group.entries_offset);
  }
  // The entries are those Open() checked (their CRC says so).
  keys_.clear();
  ends_.clear();
  std::string_view in(entries_);
  std::string_view key;
  BlockHandle h;
  while (GetIndexEntry(&in, &key, &h)) {
    keys_.push_back(key);
    ends_.push_back(h.end());
  }
  if (!in.empty() || keys_.size() != group.blocks) {
    return Corruption(file.path(), "malformed index entry", group.entries_offset);
  }
  group_ = g;
  return Status::OK();
}

size_t Table::IndexReader::GroupOf(uint64_t i) const {
  const bool held = group_ != SIZE_MAX && i - table_.groups_[group_].first_block < keys_.size();
  return held ? group_ : table_.GroupOf(i);
}

Result<std::string_view> Table::IndexReader::LastKey(uint64_t i) {
  const size_t g = GroupOf(i);
  const Group& group = table_.groups_[g];
  if (g != group_ && i + 1 == group.first_block + group.blocks) {
    return std::string_view(group.last_key);  // known without reading the group
  }
  NUTCHFS_RETURN_IF_ERROR(Load(g));
  return keys_[i - group.first_block];
}

Result<BlockHandle> Table::IndexReader::Handle(uint64_t i) {
  const size_t g = GroupOf(i);
  NUTCHFS_RETURN_IF_ERROR(Load(g));
  const uint64_t k = i - table_.groups_[g].first_block;
  const uint64_t offset = k == 0 ? table_.groups_[g].first_offset : ends_[k - 1];
  return BlockHandle{offset, ends_[k] - offset - kBlockTrailerSize};
}

Result<uint64_t> Table::IndexReader::FirstBlockEndingAtOrAbove(
    std::string_view key, std::string_view (*join)(std::string_view)) {
  auto joined = [join](std::string_view k) { return join != nullptr ? join(k) : k; };
  const std::vector<Group>& groups = table_.groups_;
  // The first group whose last key is at or above key holds the block.
  auto g = std::partition_point(groups.begin(), groups.end(), [&](const Group& group) {
    return joined(group.last_key) < key;
  });
  if (g == groups.end()) return table_.num_blocks();
  NUTCHFS_RETURN_IF_ERROR(Load(static_cast<size_t>(g - groups.begin())));
  auto k = std::partition_point(keys_.begin(), keys_.end(),
                                [&](std::string_view last) { return joined(last) < key; });
  return g->first_block + static_cast<uint64_t>(k - keys_.begin());
}

}  // namespace webdb
