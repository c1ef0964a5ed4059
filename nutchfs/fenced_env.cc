#include "nutchfs/fenced_env.h"

namespace nutchfs {
namespace {

class FencedFile final : public WritableFile {
 public:
  FencedFile(std::unique_ptr<WritableFile> base, const Fence& fence)
      : base_(std::move(base)), fence_(fence) {}

  Status Append(std::string_view data) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_->Append(data);
  }
  Status AppendBuffer(OwnedBytes* data) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_->AppendBuffer(data);
  }
  Status Flush() override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_->Flush();
  }
  Status Sync() override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_->Sync();
  }
  // A file refused at its close is still closed (its descriptor freed); what it holds
  // was never published.
  Status Close() override {
    Status fenced = fence_.Check();
    Status closed = base_->Close();
    return fenced.ok() ? closed : fenced;
  }
  const std::string& path() const override { return base_->path(); }
  void StartWriteback() override { base_->StartWriteback(); }

 private:
  std::unique_ptr<WritableFile> base_;
  const Fence& fence_;
};

class FencedEnv final : public Env {
 public:
  FencedEnv(Env* base, const Fence* fence) : base_(*base), fence_(*fence) {}

  Capabilities capabilities() const override { return base_.capabilities(); }
  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    return base_.NewSequentialFile(path);
  }
  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(const std::string& path) override {
    return base_.NewRandomAccessFile(path);
  }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    NUTCHFS_ASSIGN_OR_RETURN(auto file, base_.NewWritableFile(path));
    return std::unique_ptr<WritableFile>(new FencedFile(std::move(file), fence_));
  }
  Status CreateExclusive(const std::string& path, std::string_view contents) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_.CreateExclusive(path, contents);
  }
  bool FileExists(const std::string& path) override { return base_.FileExists(path); }
  Result<uint64_t> GetFileSize(const std::string& path) override {
    return base_.GetFileSize(path);
  }
  Result<std::vector<std::string>> GetChildren(const std::string& dir) override {
    return base_.GetChildren(dir);
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_.RenameFile(from, to);
  }
  Status RemoveFile(const std::string& path) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_.RemoveFile(path);
  }
  Status CreateDirs(const std::string& dir) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_.CreateDirs(dir);
  }
  Status RemoveDirRecursively(const std::string& dir) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_.RemoveDirRecursively(dir);
  }
  Status SyncDir(const std::string& dir) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_.SyncDir(dir);
  }
  Status CopyWithin(const std::string& from, const std::string& to) override {
    NUTCHFS_RETURN_IF_ERROR(fence_.Check());
    return base_.CopyWithin(from, to);
  }

 private:
  Env& base_;
  const Fence& fence_;
};

}  // namespace

void Fence::Set(std::function<Status()> check) {
  check_ = std::move(check);
  set_.store(true, std::memory_order_release);
}

Status Fence::Check() const {
  if (!set_.load(std::memory_order_acquire)) return Status::OK();
  return check_();
}

std::unique_ptr<Env> NewFencedEnv(Env* base, const Fence* fence) {
  return std::make_unique<FencedEnv>(base, fence);
}

}  // namespace nutchfs
