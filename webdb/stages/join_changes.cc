#include "webdb/stages/join_changes.h"

#include <fmt/format.h>

#include <utility>

#include "webdb/sort/edit_file.h"
#include "webdb/table/merging_iterator.h"

namespace webdb {

JoinChanges::JoinChanges(JoinKeyFn join_key, std::unique_ptr<EditIterator> notices)
    : join_key_(join_key), notices_(std::move(notices)) {}

std::optional<std::string_view> JoinChanges::From(std::string_view from) {
  const std::string_view join = join_key_(from);
  while (notices_->Valid() && notices_->edit().key < join) notices_->Next();
  if (notices_->Valid()) return notices_->edit().key;
  if (!notices_->status().ok()) {
    status_ = notices_->status();
    return std::string_view();
  }
  return std::nullopt;
}

// A producer's notices, written to its file from the first one on.
class JoinNotices::ProducerSink final : public NoticeSink {
 public:
  ProducerSink(nutchfs::Env& env, std::string path) : env_(env), path_(std::move(path)) {}

  void Notice(std::string_view key) override {
    if (!status_.ok()) return;
    if (file_ == nullptr) {
      Result<std::unique_ptr<EditFileWriter>> file =
          EditFileWriter::Create(env_, path_, /*sorted=*/true, "notices");
      if (!file) {
        status_ = file.error();
        return;
      }
      file_ = std::move(*file);
    }
    status_ = file_->Add(EditView{key, 0, 0, {}});
  }

  // Closes the file (temporary: no sync); the first error.
  Status Finish() {
    if (status_.ok() && file_ != nullptr) status_ = file_->Finish(/*sync=*/false);
    return status_;
  }
  bool written() const { return file_ != nullptr; }
  const std::string& path() const { return path_; }

 private:
  nutchfs::Env& env_;
  const std::string path_;
  std::unique_ptr<EditFileWriter> file_;
  Status status_;
};

JoinNotices::JoinNotices(nutchfs::Env& env, std::string dir, std::string_view kind,
                         uint64_t version, size_t producers)
    : env_(env) {
  for (size_t p = 0; p < producers; ++p) {
    sinks_.push_back(std::make_unique<ProducerSink>(
        env, fmt::format("{}/{}-notices-{:06d}.{}.tmp.edits", dir, kind, version, p)));
  }
}

JoinNotices::~JoinNotices() {
  for (const auto& sink : sinks_) {
    // A file left behind is a temporary one: the next garbage collection removes it.
    if (sink->written()) static_cast<void>(env_.RemoveFile(sink->path()));
  }
}

NoticeSink& JoinNotices::Sink(size_t producer) { return *sinks_[producer]; }

Status JoinNotices::Finish() {
  Status first;
  for (const auto& sink : sinks_) {
    Status s = sink->Finish();
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

// Files are read a frame at a time: a reader per producer and link stage part.
Result<std::unique_ptr<JoinChanges>> JoinNotices::Read(JoinKeyFn join_key) const {
  std::vector<std::unique_ptr<EditIterator>> files;
  for (const auto& sink : sinks_) {
    if (!sink->written()) continue;
    NUTCHFS_ASSIGN_OR_RETURN(auto file,
                             OpenEditFile(env_, sink->path(), kEditFrameSize, "notices"));
    files.push_back(std::move(file));
  }
  std::unique_ptr<EditIterator> notices =
      files.empty() ? NewEmptyEditIterator() : NewMergingEditIterator(std::move(files));
  return std::make_unique<JoinChanges>(join_key, std::move(notices));
}

}  // namespace webdb
