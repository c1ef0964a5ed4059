#include "webdb/db/run_sink.h"

namespace webdb {

RunSink::RunSink(std::unique_ptr<Iterator> below, std::unique_ptr<TableWriter> out)
    : below_(std::move(below)), out_(std::move(out)) {
  below_->SeekToFirst();
}

Status RunSink::Put(RunTag tag, std::string_view key, std::string_view value) {
  tagged_.clear();
  EncodeRunValue(tag, value, &tagged_);
  if (tag == RunTag::kInsert) ++inserts_;
  if (tag == RunTag::kRemove) ++removes_;
  return out_->Add(key, tagged_);
}

Status RunSink::RemoveBelow(std::optional<std::string_view> key) {
  for (; below_->Valid() && (!key || below_->key() < *key); below_->Next()) {
    NUTCHFS_RETURN_IF_ERROR(Put(RunTag::kRemove, below_->key(), {}));
  }
  return below_->status();
}

Status RunSink::Add(std::string_view key, std::string_view value) {
  NUTCHFS_RETURN_IF_ERROR(RemoveBelow(key));
  if (!below_->Valid() || below_->key() != key) return Put(RunTag::kInsert, key, value);
  Status s = below_->value() == value ? Status::OK() : Put(RunTag::kReplace, key, value);
  below_->Next();
  return s;
}

Status RunSink::AddBlock(const RawBlock& block) {
  NUTCHFS_RETURN_IF_ERROR(RemoveBelow(block.first_key));
  below_->Seek(block.last_key);
  if (below_->Valid() && below_->key() == block.last_key) below_->Next();
  return below_->status();
}

Result<RunFile> RunSink::Finish() {
  NUTCHFS_RETURN_IF_ERROR(RemoveBelow(std::nullopt));
  NUTCHFS_ASSIGN_OR_RETURN(TableFile file, out_->Finish());
  return RunFile{std::move(file), inserts_, removes_};
}

}  // namespace webdb
