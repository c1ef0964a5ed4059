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

// Iterates a table's data blocks in order; see Table::NewIterator().
class Table::Iter final : public Iterator {
 public:
  explicit Iter(const Table* table) : table_(table) {}

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
  void Restart(bool counting);
  void EnterBlock(size_t index, bool readahead);
  bool FinishBlock();
  bool LoadBlock(size_t index, bool readahead);
  bool ReadRange(uint64_t offset, uint64_t n);
  void Fail(Status s);
  // Both moves: rows moved past (the current one included) to *moved, those after the
  // current one handed to sink when it is not null.
  Status MoveRowsSharing(size_t n, RowSink* sink, uint64_t* moved);

  const Table* const table_;
  std::unique_ptr<char[]> scratch_;
  size_t scratch_size_ = 0;
  std::string_view buf_;  // bytes read from the file, starting at buf_offset_
  uint64_t buf_offset_ = 0;
  size_t block_ = 0;  // index of the block reader_ decodes
  BlockReader reader_;
  bool valid_ = false;
  bool at_block_start_ = false;  // on the first record of block_
  mutable uint64_t block_records_ = 0;  // of block_, once CurrentBlock() counted them
  bool counting_ = false;  // scanning from the first record: check the record count
  uint64_t seen_ = 0;
  std::string prefix_;    // of the rows MoveRowsSharing() moves past
  std::string previous_;  // the key before the rows MoveRowsInBlock() hands to a sink
  Status status_;
};

void Table::Iter::Restart(bool counting) {
  valid_ = false;
  at_block_start_ = false;
  status_ = Status::OK();
  counting_ = counting;
  seen_ = 0;
}

void Table::Iter::SeekToFirst() {
  Restart(true);
  EnterBlock(0, true);
}

void Table::Iter::Seek(std::string_view target) {
  Restart(false);
  // The first block whose last key is not below target.
  size_t lo = 0, hi = table_->num_blocks();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (table_->block_last_key(mid) < target) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == table_->num_blocks()) return;
  const size_t index = lo;
  if (!LoadBlock(index, false)) return;
  valid_ = reader_.Seek(target) && reader_.key() <= table_->block_last_key(index);
  if (valid_) return;
  if (!reader_.status().ok()) return Fail(reader_.status());
  Fail(Corruption(table_->path(), "keys of the block disagree with its index key: block",
                  table_->block_handle(index).offset));
}

void Table::Iter::Next() {
  if (!valid_) return;
  at_block_start_ = false;
  valid_ = reader_.Next();
  if (valid_) {
    ++seen_;
    return;
  }
  if (FinishBlock()) EnterBlock(block_ + 1, true);
}

// Positions at the first record of block index, or past the end when there is none.
void Table::Iter::EnterBlock(size_t index, bool readahead) {
  valid_ = false;
  if (index == table_->num_blocks()) {
    if (counting_ && seen_ != table_->num_records()) {
      Fail(Corruption(table_->path(),
                      "scan found " + std::to_string(seen_) + " records, footer says " +
                          std::to_string(table_->num_records()) + ": footer",
                      table_->footer_offset()));
    }
    return;
  }
  if (!LoadBlock(index, readahead)) return;
  const uint64_t offset = table_->block_handle(index).offset;
  if (!reader_.Next()) {
    if (!reader_.status().ok()) return Fail(reader_.status());
    return Fail(Corruption(table_->path(), "empty data block", offset));
  }
  if (index > 0 && reader_.key() <= table_->block_last_key(index - 1)) {
    return Fail(Corruption(
        table_->path(), "first key not greater than the previous block's last key: block", offset));
  }
  ++seen_;
  valid_ = true;
  at_block_start_ = true;
}

std::optional<BlockStart> Table::Iter::AtBlockStart() const {
  if (!valid_ || !at_block_start_) return std::nullopt;
  return BlockStart{block_, table_->block_last_key(block_)};
}

std::optional<RawBlock> Table::Iter::CurrentBlock() const {
  if (!valid_ || !at_block_start_) return std::nullopt;
  const BlockHandle h = table_->block_handle(block_);
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
  if (index >= table_->num_blocks()) return std::nullopt;
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
  if (sink != nullptr) previous_.assign(reader_.key());
  std::string_view records;
  const bool on_row = reader_.NextAtOrAbove(limit, moved, &records);
  seen_ += *moved;
  if (sink != nullptr && *moved > 0) {
    NUTCHFS_RETURN_IF_ERROR(sink->AddStoredRun(previous_, records));
  }
  if (on_row) {
    ++seen_;
    return Status::OK();
  }
  if (FinishBlock()) EnterBlock(block_ + 1, true);
  return Status::OK();
}

// Within a block, the reader moves past the records by their lengths (and hands their
// bytes to sink); a block that ends in the run has its last key checked against the index
// as far as the lengths tell (the prefix and the size), and the run goes on into the next
// block while its keys do, from that block's first row (decoded: it stores its key whole).
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
      Fail(Corruption(table_->path(), "last key differs from the index: block",
                      table_->block_handle(block_).offset));
      return Status::OK();
    }
    EnterBlock(block_ + 1, true);
    if (!valid_ || !reader_.key().starts_with(prefix_)) return Status::OK();
    if (sink != nullptr) NUTCHFS_RETURN_IF_ERROR(sink->Add(reader_.key(), reader_.value()));
    ++*moved;
  }
}

// Called when reader_ has no more records: checks how the block ended.
bool Table::Iter::FinishBlock() {
  if (!reader_.status().ok()) {
    Fail(reader_.status());
    return false;
  }
  if (reader_.key() != table_->block_last_key(block_)) {
    Fail(Corruption(table_->path(), "last key differs from the index: block",
                    table_->block_handle(block_).offset));
    return false;
  }
  return true;
}

// Makes reader_ decode block index, reading it (and with readahead, the blocks that follow
// it, up to kReadaheadSize) unless it is already in buf_.
bool Table::Iter::LoadBlock(size_t index, bool readahead) {
  const BlockHandle h = table_->block_handle(index);
  if (h.offset < buf_offset_ || h.end() > buf_offset_ + buf_.size()) {
    const std::vector<uint64_t>& ends = table_->block_ends_;
    uint64_t end = h.end();
    for (size_t j = index + 1; readahead && j < ends.size(); ++j) {
      if (ends[j] - h.offset > kReadaheadSize) break;
      end = ends[j];
    }
    if (!ReadRange(h.offset, end - h.offset)) return false;
  }
  std::string_view raw = buf_.substr(h.offset - buf_offset_, h.end() - h.offset);
  Result<std::string_view> contents = CheckBlockTrailer(raw, table_->path(), h.offset);
  if (!contents) {
    Fail(contents.error());
    return false;
  }
  reader_.Reset(*contents, &table_->path(), h.offset);
  block_ = index;
  return true;
}

bool Table::Iter::ReadRange(uint64_t offset, uint64_t n) {
  buf_ = {};
  if (scratch_size_ < n) {
    scratch_.reset(new char[n]);
    scratch_size_ = n;
  }
  Result<std::string_view> got = ReadExact(*table_->file_, offset, n, scratch_.get());
  if (!got) {
    Fail(got.error());
    return false;
  }
  buf_ = *got;
  buf_offset_ = offset;
  return true;
}

void Table::Iter::Fail(Status s) {
  valid_ = false;
  status_ = std::move(s);
}

Table::Table(std::unique_ptr<nutchfs::RandomAccessFile> file) : file_(std::move(file)) {}

Result<std::unique_ptr<Table>> Table::Open(nutchfs::Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewRandomAccessFile(path));
  return Open(std::move(file));
}

Result<std::unique_ptr<Table>> Table::Open(std::unique_ptr<nutchfs::RandomAccessFile> file) {
  std::unique_ptr<Table> table(new Table(std::move(file)));
  NUTCHFS_ASSIGN_OR_RETURN(table->footer_, ReadTableFooter(*table->file_));
  NUTCHFS_RETURN_IF_ERROR(table->ReadIndex());
  return table;
}

std::unique_ptr<Iterator> Table::NewIterator() const { return std::make_unique<Iter>(this); }

Status Table::CorruptionAt(std::string_view what, uint64_t offset) const {
  return Corruption(path(), what, offset);
}

Status Table::ReadIndex() {
  const BlockHandle& h = footer_.index;
  std::string scratch(h.size + kBlockTrailerSize, '\0');
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view raw,
                           ReadExact(*file_, h.offset, scratch.size(), scratch.data()));
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view index, CheckBlockTrailer(raw, path(), h.offset));
  return ParseIndex(index);
}

Status Table::ParseIndex(std::string_view index) {
  const uint64_t index_offset = footer_.index.offset;
  key_ends_.reserve(footer_.num_blocks);
  block_ends_.reserve(footer_.num_blocks);
  keys_.reserve(index.size());
  uint64_t expected = 0;  // where the next data block must start
  while (!index.empty()) {
    uint64_t entry_offset = index_offset + footer_.index.size - index.size();
    std::string_view key;
    BlockHandle h;
    if (!GetIndexEntry(&index, &key, &h))
      return CorruptionAt("malformed index entry", entry_offset);
    if (h.offset != expected || h.size == 0 || h.size > index_offset - h.offset ||
        index_offset - h.offset - h.size < kBlockTrailerSize) {
      return CorruptionAt("index entry with a bad block handle", entry_offset);
    }
    if (!key_ends_.empty() && key <= block_last_key(key_ends_.size() - 1)) {
      return CorruptionAt("index keys out of order", entry_offset);
    }
    keys_.append(key);
    key_ends_.push_back(keys_.size());
    block_ends_.push_back(h.end());
    expected = h.end();
  }
  keys_.shrink_to_fit();
  if (expected != index_offset || block_ends_.size() != footer_.num_blocks) {
    return CorruptionAt("index does not cover the data blocks: index", index_offset);
  }
  return Status::OK();
}

}  // namespace webdb
