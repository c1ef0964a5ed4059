#include "webdb/table/table_builder.h"

#include <algorithm>
#include <limits>

#include "webdb/table/block.h"
#include "webdb/table/table_format.h"
#include "webdb/util/coding.h"
#include "webdb/util/crc32c.h"

namespace webdb {

using nutchfs::Err;

Result<std::unique_ptr<TableBuilder>> TableBuilder::Create(nutchfs::Env& env,
                                                           const std::string& path,
                                                           size_t target_block_size) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewWritableFile(path));
  return std::unique_ptr<TableBuilder>(new TableBuilder(env, std::move(file), target_block_size));
}

TableBuilder::TableBuilder(nutchfs::Env& env, std::unique_ptr<nutchfs::WritableFile> file,
                           size_t target_block_size)
    : env_(env), path_(file->path()), file_(std::move(file)), block_(target_block_size),
      target_block_size_(target_block_size) {}

TableBuilder::~TableBuilder() {
  if (index_path_.empty()) return;
  index_file_.reset();
  Status ignored = env_.RemoveFile(index_path_);
  (void)ignored;  // an unfinished table's file: garbage collection removes it otherwise
}

Status TableBuilder::Add(std::string_view key, std::string_view value) {
  if (!status_.ok()) return status_;
  if (finished_) return Status::InvalidArgument(path() + ": Add after Finish");
  constexpr size_t kMax = std::numeric_limits<uint32_t>::max();
  if (key.size() > kMax || value.size() > kMax) {
    return Status::InvalidArgument(path() + ": record too large");
  }
  if (!block_.empty() && block_.SizeWith(key.size(), value.size()) > target_block_size_) {
    NUTCHFS_RETURN_IF_ERROR(FlushBlock());
  }
  // Within a block, the builder checks the order by the comparison it encodes with; a
  // block's first key is checked against the last block's last key.
  const bool in_order =
      (!block_.empty() || num_records_ == 0 || key > std::string_view(last_key_)) &&
      block_.Add(key, value);
  if (!in_order) {
    return Status::InvalidArgument(path() + ": keys out of order: record " +
                                   std::to_string(num_records_) +
                                   " is not greater than the previous key");
  }
  ++num_records_;
  if (block_.size() >= target_block_size_) return FlushBlock();
  return Status::OK();
}

Result<StoredRun> TableBuilder::AddStoredRun(std::string_view previous_key,
                                             std::string_view records,
                                             std::optional<std::string_view> limit) {
  if (!status_.ok()) return Err(status_);
  if (finished_) return Err(Status::InvalidArgument(path() + ": AddStoredRun after Finish"));
  if (num_records_ == 0 || previous_key != LastKey()) {
    return Err(Status::InvalidArgument(path() + ": stored rows do not follow the key added last"));
  }
  StoredRun run;
  const size_t total = records.size();
  bool at_limit = false;
  while (!records.empty() && !at_limit) {
    const char* error = nullptr;
    const size_t offset = total - records.size();
    if (block_.empty()) {
      // The first record of a block stores its key whole: decoded against the last key
      // (of the block just written), it is added as a row.
      RecordHeader r;
      const std::string_view last = LastKey();
      if (!ParseRecord(records.data(), records.data() + records.size(), &r, &error)) {
        return Err(StoredRunCorruption(error, offset));
      }
      if (r.shared > last.size()) {
        return Err(StoredRunCorruption("bad shared key prefix length", offset));
      }
      row_key_.assign(last.substr(0, r.shared));
      row_key_.append(r.delta, r.unshared);
      if (row_key_ <= last) return Err(StoredRunCorruption(nullptr, offset));
      if (limit && std::string_view(row_key_) >= *limit) break;
      NUTCHFS_RETURN_IF_ERROR(Add(row_key_, std::string_view(r.delta + r.unshared, r.value_size)));
      ++run.rows;
      records.remove_prefix(static_cast<size_t>(r.end - records.data()));
      continue;
    }
    uint64_t added = 0;
    records.remove_prefix(
        block_.AddStored(records, target_block_size_, limit, &added, &error, &at_limit));
    num_records_ += added;
    run.rows += added;
    if (error != nullptr) return Err(StoredRunCorruption(error, total - records.size()));
    // Stopped before a record the block cannot take, or after one that filled it.
    if ((!records.empty() && !at_limit) || block_.size() >= target_block_size_) {
      NUTCHFS_RETURN_IF_ERROR(FlushBlock());
    }
  }
  run.bytes = total - records.size();
  if (run.rows > 0) run.last_key = LastKey();
  return run;
}

Status TableBuilder::StoredRunCorruption(const char* error, size_t offset) {
  return Status::Corruption(path() + ": stored rows to copy: malformed record (" +
                            (error != nullptr ? error : "key not greater than the previous key") +
                            ") at offset " + std::to_string(offset) + " of the run");
}

Status TableBuilder::AddBlock(const RawBlock& block) {
  if (!status_.ok()) return status_;
  if (finished_) return Status::InvalidArgument(path() + ": AddBlock after Finish");
  if (num_records_ > 0 && block.first_key <= LastKey()) {
    return Status::InvalidArgument(path() + ": copied block out of key order at record " +
                                   std::to_string(num_records_));
  }
  if (!block_.empty()) NUTCHFS_RETURN_IF_ERROR(FlushBlock());
  BlockHandle handle{offset_, block.bytes.size() - kBlockTrailerSize};
  NUTCHFS_RETURN_IF_ERROR(WriteBlock(block.bytes));
  NUTCHFS_RETURN_IF_ERROR(AddIndexEntry(block.last_key, handle));
  ++num_blocks_;
  num_records_ += block.records;
  last_key_.assign(block.last_key);
  return Status::OK();
}

// The block's buffer goes to the file, which takes it rather than copy it when it can.
Status TableBuilder::FlushBlock() {
  BlockHandle handle{offset_, block_.size()};
  const std::string_view block = block_.Finish();
  const uint32_t crc = BlockCrc(block);
  const size_t size = block.size();
  status_ = file_->AppendBuffer(block_.finished_buffer());
  if (!status_.ok()) return status_;
  Appended(size, crc);
  NUTCHFS_RETURN_IF_ERROR(AddIndexEntry(block_.last_key(), handle));
  ++num_blocks_;
  last_key_.assign(block_.last_key());
  block_.Reset();
  return Status::OK();
}

Status TableBuilder::AddIndexEntry(std::string_view last_key, const BlockHandle& handle) {
  const size_t before = index_.size();
  AppendIndexEntry(last_key, handle, &index_);
  index_size_ += index_.size() - before;
  index_crc_ = crc32c::Extend(index_crc_, index_.data() + before, index_.size() - before);
  return index_.size() >= kIndexSpill ? SpillIndex() : Status::OK();
}

Status TableBuilder::SpillIndex() {
  if (index_path_.empty()) {
    index_path_ = path() + ".tmp.index";
    auto side = env_.NewWritableFile(index_path_);
    if (!side) return status_ = side.error();
    index_file_ = std::move(*side);
  }
  status_ = index_file_->Append(index_);
  index_.clear();
  return status_;
}

// The side file is read back at once, from the page cache: it is neither synced nor
// checked (the index block's CRC, taken as the entries were made, covers the copy).
Status TableBuilder::CopySpilledIndex() {
  NUTCHFS_RETURN_IF_ERROR(status_ = index_file_->Close());
  index_file_.reset();
  NUTCHFS_ASSIGN_OR_RETURN(auto in, env_.NewSequentialFile(index_path_));
  std::unique_ptr<char[]> scratch(new char[kIndexSpill]);
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, in->Read(kIndexSpill, scratch.get()));
    if (got.empty()) break;
    NUTCHFS_RETURN_IF_ERROR(Write(got));
  }
  in.reset();
  status_ = env_.RemoveFile(index_path_);
  index_path_.clear();
  return status_;
}

Status TableBuilder::Write(std::string_view data) {
  return Append(data, crc32c::Value(data));
}

// The trailer holds the masked crc of the block bytes and the type byte, checked when a
// copied block was read: the crc of the whole follows from it without a second pass.
uint32_t TableBuilder::BlockCrc(std::string_view block_with_trailer) {
  const char* crc = block_with_trailer.data() + block_with_trailer.size() - 4;
  return crc32c::Extend(crc32c::Unmask(DecodeFixed32(crc)), crc, 4);
}

Status TableBuilder::WriteBlock(std::string_view block_with_trailer) {
  return Append(block_with_trailer, BlockCrc(block_with_trailer));
}

Status TableBuilder::Append(std::string_view data, uint32_t data_crc) {
  status_ = file_->Append(data);
  if (!status_.ok()) return status_;
  Appended(data.size(), data_crc);
  return Status::OK();
}

void TableBuilder::Appended(size_t size, uint32_t crc) {
  file_crc_ = crc32c::Combine(file_crc_, crc, size);
  offset_ += size;
  if (offset_ - writeback_from_ >= kWritebackStep) {
    file_->StartWriteback();
    writeback_from_ = offset_;
  }
}

Status TableBuilder::Finish() {
  NUTCHFS_RETURN_IF_ERROR(WriteTail());
  status_ = file_->Sync();
  if (status_.ok()) status_ = file_->Close();
  return status_;
}

Status TableBuilder::FinishDeferred(DeferredSyncs& syncs, std::string context) {
  NUTCHFS_RETURN_IF_ERROR(WriteTail());
  status_ = file_->Flush();
  if (status_.ok()) syncs.Add(std::move(file_), std::move(context));
  return status_;
}

Status TableBuilder::WriteTail() {
  if (!status_.ok()) return status_;
  if (finished_) return Status::InvalidArgument(path() + ": Finish called twice");
  finished_ = true;
  if (!block_.empty()) NUTCHFS_RETURN_IF_ERROR(FlushBlock());
  Footer footer;
  footer.index = BlockHandle{offset_, index_size_};
  footer.num_records = num_records_;
  footer.num_blocks = num_blocks_;
  if (!index_path_.empty()) NUTCHFS_RETURN_IF_ERROR(CopySpilledIndex());
  NUTCHFS_RETURN_IF_ERROR(Write(index_));
  index_.clear();
  std::string trailer;
  AppendBlockTrailerWithCrc(index_crc_, &trailer);
  NUTCHFS_RETURN_IF_ERROR(Write(trailer));
  footer.file_id = file_id_ = TableFileId(file_crc_, index_crc_);
  std::string encoded;
  EncodeFooter(footer, &encoded);
  return Write(encoded);
}

}  // namespace webdb
