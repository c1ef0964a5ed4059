#include "webdb/table.h"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "webdb/block.h"

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
      : table_(table), lower_(range.lower), upper_(range.upper) {
    // Blocks lie in the range from the one after the last block that ends below lower_
    // (its rows are above that block's last key) to the one before the block that ends
    // at or above upper_ (the block the range ends in).
    if (!lower_.empty()) lower_block_ = FirstBlockEndingAtOrAbove(lower_) + 1;
    upper_block_ = upper_ ? FirstBlockEndingAtOrAbove(*upper_) : table_->num_blocks();
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
  Status CopyRowsSharing(size_t n, RowSink& sink, uint64_t* copied) override;
  std::optional<uint64_t> BlockIndex() const override;
  Status MoveRowsInBlock(std::optional<std::string_view> limit, RowSink* sink,
                         uint64_t* moved) override;

 private:
  uint64_t FirstBlockEndingAtOrAbove(std::string_view key) const;
  void Restart(bool counting);
  void EnterBlock(uint64_t index, bool readahead);
  bool FinishBlock();
  bool LoadBlock(uint64_t index, bool readahead);
  bool ReadRange(size_t part, uint64_t offset, uint64_t n);
  void Fail(Status s);
  // Where the scan has left the range: the current row is at or above upper_ (only
  // possible in the block the range ends in).
  bool PastRange() const { return block_ == upper_block_ && upper_ && reader_.key() >= *upper_; }
  // Both moves: rows moved past (the current one included) to *moved, those after the
  // current one handed to sink when it is not null.
  Status MoveRowsSharing(size_t n, RowSink* sink, uint64_t* moved);
  // The same one row at a time, in the block the range ends in.
  Status MoveRowsSharingInLastBlock(RowSink* sink, uint64_t* moved);
  Status CorruptionInBlock(std::string_view what) const {
    return Corruption(table_->path(part_), what, table_->block_handle(block_, part_).offset);
  }

  const Table* const table_;
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
  bool at_block_start_ = false;  // on the first record of block_
  mutable uint64_t block_records_ = 0;  // of block_, once CurrentBlock() counted them
  bool counting_ = false;  // scanning from the first record: check the record counts
  uint64_t seen_ = 0;
  std::string prefix_;    // of the rows MoveRowsSharing() moves past
  std::string previous_;  // the key before the rows MoveRowsInBlock() hands to a sink
  Status status_;
};

uint64_t Table::Iter::FirstBlockEndingAtOrAbove(std::string_view key) const {
  uint64_t lo = 0, hi = table_->num_blocks();
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (table_->block_last_key(mid) < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

void Table::Iter::Restart(bool counting) {
  valid_ = false;
  at_block_start_ = false;
  status_ = Status::OK();
  counting_ = counting;
  seen_ = 0;
}

void Table::Iter::SeekToFirst() {
  if (!lower_.empty() || upper_) return Seek(lower_);
  Restart(true);
  EnterBlock(0, true);
}

void Table::Iter::Seek(std::string_view target) {
  Restart(false);
  if (target < lower_) target = lower_;
  const uint64_t index = FirstBlockEndingAtOrAbove(target);
  if (index == table_->num_blocks() || index > upper_block_) return;
  if (!LoadBlock(index, false)) return;
  valid_ = reader_.Seek(target) && reader_.key() <= table_->block_last_key(index);
  if (valid_) {
    valid_ = !PastRange();
    return;
  }
  if (!reader_.status().ok()) return Fail(reader_.status());
  Fail(CorruptionInBlock("keys of the block disagree with its index key: block"));
}

void Table::Iter::Next() {
  if (!valid_) return;
  at_block_start_ = false;
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
  if (!LoadBlock(index, readahead)) return;
  if (!reader_.Next()) {
    if (!reader_.status().ok()) return Fail(reader_.status());
    return Fail(CorruptionInBlock("empty data block"));
  }
  if (index > 0 && reader_.key() <= table_->block_last_key(index - 1)) {
    return Fail(
        CorruptionInBlock("first key not greater than the previous block's last key: block"));
  }
  ++seen_;
  valid_ = !PastRange();
  at_block_start_ = valid_;
}

std::optional<BlockStart> Table::Iter::AtBlockStart() const {
  if (!valid_ || !at_block_start_ || block_ < lower_block_ || block_ >= upper_block_) {
    return std::nullopt;
  }
  return BlockStart{block_, table_->block_last_key(block_)};
}

std::optional<RawBlock> Table::Iter::CurrentBlock() const {
  if (!AtBlockStart()) return std::nullopt;
  const BlockHandle h = table_->block_handle(block_, part_);
  std::string_view raw = buf_.substr(h.offset - buf_offset_, h.end() - h.offset);
  std::optional<uint64_t> records = CountBlockRecords(raw.substr(0, h.size));
  if (!records) return std::nullopt;
  block_records_ = *records;
  return RawBlock{raw, reader_.key(), table_->block_last_key(block_), *records, block_};
}

void Table::Iter::SkipBlock() {
  seen_ += block_records_ - 1;  // the first was counted on entering the block
  EnterBlock(block_ + 1, true);
}

std::optional<BlockStart> Table::Iter::BlockAt(uint64_t index) const {
  if (index < lower_block_ || index >= upper_block_) return std::nullopt;
  return BlockStart{index, table_->block_last_key(index)};
}

void Table::Iter::SkipToBlock(uint64_t index) {
  counting_ = false;  // the rows of the blocks skipped are not counted
  EnterBlock(index, true);
}

uint64_t Table::Iter::SkipRowsSharing(size_t n) {
  uint64_t moved = 0;
  static_cast<void>(MoveRowsSharing(n, nullptr, &moved));  // no sink, no sink error
  return moved;
}

Status Table::Iter::CopyRowsSharing(size_t n, RowSink& sink, uint64_t* copied) {
  uint64_t moved = 0;
  Status s = MoveRowsSharing(n, &sink, &moved);
  *copied = moved > 0 ? moved - 1 : 0;
  return s;
}

std::optional<uint64_t> Table::Iter::BlockIndex() const {
  if (!valid_) return std::nullopt;
  return block_;
}

// The reader decodes the records (keys rebuilt and checked for order) and hands their
// bytes to sink, encoded against the current row's key, copied first: the reader's key
// moves on. The block's end is checked against the index as Next() checks it.
Status Table::Iter::MoveRowsInBlock(std::optional<std::string_view> limit, RowSink* sink,
                                    uint64_t* moved) {
  *moved = 0;
  if (!valid_) return Status::OK();
  at_block_start_ = false;
  if (block_ == upper_block_ && upper_ && (!limit || *upper_ < *limit)) limit = *upper_;
  if (sink != nullptr) previous_.assign(reader_.key());
  std::string_view records;
  const bool on_row = reader_.NextAtOrAbove(limit, moved, &records);
  seen_ += *moved;
  if (sink != nullptr && *moved > 0) {
    NUTCHFS_RETURN_IF_ERROR(sink->AddStoredRun(previous_, records));
  }
  if (on_row) {
    ++seen_;
    valid_ = !PastRange();
    return Status::OK();
  }
  if (FinishBlock()) EnterBlock(block_ + 1, true);
  return Status::OK();
}

// Within a block, the reader moves past the records by their lengths (and hands their
// bytes to sink); a block that ends in the run has its last key checked against the index
// as far as the lengths tell (the prefix and the size), and the run goes on into the next
// block while its keys do, from that block's first row (decoded: it stores its key whole).
// In the block the range ends in, rows are decoded one by one, to stop at the range's end.
Status Table::Iter::MoveRowsSharing(size_t n, RowSink* sink, uint64_t* moved) {
  *moved = 0;
  if (!valid_) return Status::OK();
  *moved = 1;
  if (reader_.key().size() < n) {
    Next();
    return Status::OK();
  }
  prefix_.assign(reader_.key().substr(0, n));
  for (;;) {
    if (block_ == upper_block_) return MoveRowsSharingInLastBlock(sink, moved);
    at_block_start_ = false;
    size_t last_size = 0;
    std::string_view records;
    const std::string_view previous = reader_.key();  // stays while the reader skips
    const uint64_t skipped = reader_.SkipSharing(n, &last_size, &records);
    if (sink != nullptr && skipped > 0) {
      NUTCHFS_RETURN_IF_ERROR(sink->AddStoredRun(previous, records));
    }
    *moved += skipped;
    seen_ += skipped;
    if (reader_.Next()) {
      ++seen_;
      return Status::OK();
    }
    if (skipped == 0) {
      if (!FinishBlock()) return Status::OK();
    } else if (!reader_.status().ok()) {
      Fail(reader_.status());
      return Status::OK();
    } else if (const std::string_view last = table_->block_last_key(block_);
               last.size() != last_size || !last.starts_with(prefix_)) {
      Fail(CorruptionInBlock("last key differs from the index: block"));
      return Status::OK();
    }
    EnterBlock(block_ + 1, true);
    if (!valid_ || !reader_.key().starts_with(prefix_)) return Status::OK();
    if (sink != nullptr) NUTCHFS_RETURN_IF_ERROR(sink->Add(reader_.key(), reader_.value()));
    ++*moved;
  }
}

Status Table::Iter::MoveRowsSharingInLastBlock(RowSink* sink, uint64_t* moved) {
  for (Next(); valid_ && reader_.key().starts_with(prefix_); Next()) {
    if (sink != nullptr) NUTCHFS_RETURN_IF_ERROR(sink->Add(reader_.key(), reader_.value()));
    ++*moved;
  }
  return Status::OK();
}

// Called when reader_ has no more records: checks how the block ended.
bool Table::Iter::FinishBlock() {
  if (!reader_.status().ok()) {
    Fail(reader_.status());
    return false;
  }
  if (reader_.key() != table_->block_last_key(block_)) {
    Fail(CorruptionInBlock("last key differs from the index: block"));
    return false;
  }
  return true;
}

// Makes reader_ decode block index, reading it (and with readahead, the blocks of its
// part that follow it, up to kReadaheadSize) unless it is already in buf_.
bool Table::Iter::LoadBlock(uint64_t index, bool readahead) {
  const size_t part = table_->PartOf(index);
  const BlockHandle h = table_->block_handle(index, part);
  if (part != buf_part_ || h.offset < buf_offset_ || h.end() > buf_offset_ + buf_.size()) {
    const std::vector<uint64_t>& ends = table_->block_ends_;
    const uint64_t part_end = table_->part_blocks_end(part);
    uint64_t end = h.end();
    for (uint64_t j = index + 1; readahead && j < part_end; ++j) {
      if (ends[j] - h.offset > kReadaheadSize) break;
      end = ends[j];
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
  table->keys_.shrink_to_fit();
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
  const BlockHandle& h = part.footer.index;
  std::string scratch(h.size + kBlockTrailerSize, '\0');
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view raw,
                           ReadExact(*part.file, h.offset, scratch.size(), scratch.data()));
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view index,
                           CheckBlockTrailer(raw, part.file->path(), h.offset));
  NUTCHFS_RETURN_IF_ERROR(ParseIndex(part, index));
  parts_.push_back(std::move(part));
  return Status::OK();
}

Status Table::ParseIndex(const Part& part, std::string_view index) {
  const Footer& footer = part.footer;
  const uint64_t index_offset = footer.index.offset;
  auto corruption = [&part](std::string_view what, uint64_t offset) {
    return Corruption(part.file->path(), what, offset);
  };
  key_ends_.reserve(key_ends_.size() + footer.num_blocks);
  block_ends_.reserve(block_ends_.size() + footer.num_blocks);
  uint64_t expected = 0;  // where the next data block must start
  while (!index.empty()) {
    uint64_t entry_offset = index_offset + footer.index.size - index.size();
    std::string_view key;
    BlockHandle h;
    if (!GetIndexEntry(&index, &key, &h)) return corruption("malformed index entry", entry_offset);
    if (h.offset != expected || h.size == 0 || h.size > index_offset - h.offset ||
        index_offset - h.offset - h.size < kBlockTrailerSize) {
      return corruption("index entry with a bad block handle", entry_offset);
    }
    // Across parts too: the first block of a part ends above the last block before it.
    if (!key_ends_.empty() && key <= block_last_key(key_ends_.size() - 1)) {
      return corruption("index keys out of order", entry_offset);
    }
    keys_.append(key);
    key_ends_.push_back(keys_.size());
    block_ends_.push_back(h.end());
    expected = h.end();
  }
  if (expected != index_offset || num_blocks() - part.first_block != footer.num_blocks) {
    return corruption("index does not cover the data blocks: index", index_offset);
  }
  return Status::OK();
}

}  // namespace webdb
