#include "webdb/table/iterator.h"

#include <string>

#include "webdb/table/block.h"
#include "webdb/table/table_format.h"

namespace webdb {
namespace {

class EmptyIterator final : public Iterator {
 public:
  bool Valid() const override { return false; }
  void SeekToFirst() override {}
  void Seek(std::string_view) override {}
  void Next() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
  Status status() const override { return Status::OK(); }
};

class EmptyEditIterator final : public EditIterator {
 public:
  bool Valid() const override { return false; }
  void Next() override {}
  const EditView& edit() const override { return edit_; }
  Status status() const override { return Status::OK(); }

 private:
  EditView edit_;
};

}  // namespace

Status RowSink::AddBlock(const RawBlock& block) {
  BlockReader reader;
  const std::string name = "copied block";
  reader.Reset(block.bytes.substr(0, block.bytes.size() - kBlockTrailerSize), &name, 0);
  while (reader.Next()) NUTCHFS_RETURN_IF_ERROR(Add(reader.key(), reader.value()));
  return reader.status();
}

Status RowSink::KeepRows(std::string_view from, std::optional<std::string_view>) {
  return Status::InvalidArgument("a table writer cannot keep rows it is not handed (from key " +
                                 std::string(from.substr(0, 200)) + ")");
}

Result<StoredRun> RowSink::AddStoredRun(std::string_view previous_key, std::string_view records,
                                        std::optional<std::string_view> limit) {
  PrefixKey key;
  key.Set(0, previous_key);
  const char* p = records.data();
  const char* const end = p + records.size();
  RecordHeader r;
  const char* what;
  StoredRun run;
  while (p < end) {
    if (!ParseRecordAfter(key, p, end, &r, &what)) {
      return nutchfs::Err(Status::Corruption("stored rows: malformed record (" + std::string(what) +
                                             ") at offset " + std::to_string(p - records.data())));
    }
    key.Set(r.shared, std::string_view(r.delta, r.unshared));
    if (limit && key.view() >= *limit) break;
    NUTCHFS_RETURN_IF_ERROR(Add(key.view(), std::string_view(r.delta + r.unshared, r.value_size)));
    p = r.end;
    ++run.rows;
    stored_last_key_.assign(key.view());
  }
  run.bytes = static_cast<size_t>(p - records.data());
  if (run.rows > 0) run.last_key = stored_last_key_;
  return run;
}

uint64_t Iterator::SkipRowsSharing(size_t n) {
  const std::string prefix(key().substr(0, n));
  uint64_t moved = 0;
  do {
    Next();
    ++moved;
  } while (Valid() && key().starts_with(prefix));
  return moved;
}

// Rows not read from a table file are taken as one block.
Status Iterator::MoveRowsInBlock(std::optional<std::string_view> limit, RowSink* sink,
                                 uint64_t* moved) {
  *moved = 0;
  for (Next(); Valid() && (!limit || key() < *limit); Next()) {
    if (sink != nullptr) NUTCHFS_RETURN_IF_ERROR(sink->Add(key(), value()));
    ++*moved;
  }
  return Status::OK();
}

std::unique_ptr<Iterator> NewEmptyIterator() { return std::make_unique<EmptyIterator>(); }
std::unique_ptr<EditIterator> NewEmptyEditIterator() {
  return std::make_unique<EmptyEditIterator>();
}

}  // namespace webdb
