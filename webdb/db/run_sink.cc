#include "webdb/db/run_sink.h"

namespace webdb {

RunSink::RunSink(std::unique_ptr<Iterator> below, std::vector<std::unique_ptr<Iterator>> absorbed,
                 std::vector<std::string> absorbed_names, std::unique_ptr<TableWriter> out)
    : below_(std::move(below)),
      absorbed_(std::move(absorbed)),
      absorbed_names_(std::move(absorbed_names)),
      out_(std::move(out)) {
  below_->SeekToFirst();
  for (auto& run : absorbed_) run->SeekToFirst();
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
  if (kept_to_end_) {
    return Status::InvalidArgument("run: a row added after the rows kept to the end");
  }
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

Status RunSink::KeepBelow(std::optional<std::string_view> key) {
  if (!key) {
    kept_to_end_ = true;
    return below_->status();
  }
  if (below_->Valid() && below_->key() < *key) below_->Seek(*key);
  return below_->status();
}

Result<bool> RunSink::CarryAbsorbed(std::optional<std::string_view> limit) {
  size_t top = absorbed_.size();  // the newest run at the smallest key
  for (size_t i = 0; i < absorbed_.size(); ++i) {
    const Iterator& run = *absorbed_[i];
    if (!run.Valid()) {
      NUTCHFS_RETURN_IF_ERROR(run.status());
      continue;
    }
    if (top == absorbed_.size() || run.key() <= absorbed_[top]->key()) top = i;
  }
  if (top == absorbed_.size() || (limit && absorbed_[top]->key() >= *limit)) return false;
  const std::string key(absorbed_[top]->key());
  const std::optional<RunRow> row = DecodeRunValue(absorbed_[top]->value());
  if (!row) {
    return nutchfs::Err(
        Status::Corruption(absorbed_names_[top] + ": malformed run row, absorbed by a run"));
  }
  NUTCHFS_RETURN_IF_ERROR(KeepBelow(key));
  const bool held_below = below_->Valid() && below_->key() == key;
  if (!HeldAfter(row->tag)) {
    if (held_below) NUTCHFS_RETURN_IF_ERROR(Put(RunTag::kRemove, key, {}));
  } else if (!held_below) {
    NUTCHFS_RETURN_IF_ERROR(Put(RunTag::kInsert, key, row->value));
  } else if (below_->value() != row->value) {
    NUTCHFS_RETURN_IF_ERROR(Put(RunTag::kReplace, key, row->value));
  }
  if (held_below) below_->Next();
  for (auto& run : absorbed_) {
    if (run->Valid() && run->key() == key) run->Next();
  }
  return true;
}

// The rows the stage keeps are the table's: where the absorbed runs hold none, the
// layers below's, which stay; where they hold one, theirs, which the new run must hold.
Status RunSink::KeepRows(std::string_view from, std::optional<std::string_view> limit) {
  NUTCHFS_RETURN_IF_ERROR(RemoveBelow(from));
  for (auto& run : absorbed_) {
    if (run->Valid() && run->key() < from) run->Seek(from);
  }
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(bool carried, CarryAbsorbed(limit));
    if (!carried) break;
  }
  return KeepBelow(limit);
}

Result<RunFile> RunSink::Finish() {
  if (!kept_to_end_) NUTCHFS_RETURN_IF_ERROR(RemoveBelow(std::nullopt));
  NUTCHFS_ASSIGN_OR_RETURN(TableFile file, out_->Finish());
  return RunFile{std::move(file), inserts_, removes_};
}

}  // namespace webdb
