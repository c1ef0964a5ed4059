#include "nutchfs/fault_env.h"

#include <array>
#include <cerrno>
#include <mutex>
#include <optional>

namespace nutchfs {
namespace {

constexpr size_t kNumOps = static_cast<size_t>(FaultOp::kSyncDir) + 1;

const char* OpName(FaultOp op) {
  static constexpr std::array<const char*, kNumOps> kNames = {"open for reading",
                                                              "open for random access",
                                                              "open for writing",
                                                              "exclusive create",
                                                              "read",
                                                              "append",
                                                              "sync",
                                                              "close",
                                                              "size",
                                                              "list",
                                                              "rename",
                                                              "remove",
                                                              "create directory",
                                                              "sync directory"};
  return kNames[static_cast<size_t>(op)];
}

// The failure of a fault of kind kError on op at path (`what` names it: the path, or
// for a rename "FROM to TO").
Status Injected(const FaultSpec& spec, const std::string& what) {
  const std::string context = std::string(OpName(spec.op)) + " " + what;
  // As the local Env reports a file that is not there.
  if (spec.error == ENOENT) return Status::NotFound(context + ": no such file or directory");
  if (spec.error != 0) return Status::FromErrno(context, spec.error);
  return Status::IOError("injected fault: " + context);
}

// The armed faults and their counters, shared by the Env and the files it opened.
class FaultState {
 public:
  // The fault to apply to this operation on path, if one fires.
  std::optional<FaultSpec> Check(FaultOp op, const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    Armed& a = armed_[static_cast<size_t>(op)];
    if (!a.active || !path.starts_with(a.spec.path_prefix)) return std::nullopt;
    ++a.count;
    if (a.count < a.spec.nth || (a.spec.times >= 0 && a.count >= a.spec.nth + a.spec.times)) {
      return std::nullopt;
    }
    ++fired_;
    return a.spec;
  }

  void Arm(const FaultSpec& spec) {
    std::lock_guard<std::mutex> lock(mu_);
    armed_[static_cast<size_t>(spec.op)] = Armed{spec, 0, true};
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = {};
    fired_ = 0;
  }

  int fired() const {
    std::lock_guard<std::mutex> lock(mu_);
    return fired_;
  }

  int seen(FaultOp op) const {
    std::lock_guard<std::mutex> lock(mu_);
    return armed_[static_cast<size_t>(op)].count;
  }

 private:
  struct Armed {
    FaultSpec spec;
    int count = 0;
    bool active = false;
  };

  mutable std::mutex mu_;
  std::array<Armed, kNumOps> armed_{};
  int fired_ = 0;
};

// Runs a Status-returning operation on path unless a kError or kDrop fault fires; `what`
// names the operation's target in the error (default: path).
template <typename Fn>
Status Guard(FaultState& state, FaultOp op, const std::string& path, Fn&& fn,
             const std::string& what = "") {
  std::optional<FaultSpec> fault = state.Check(op, path);
  if (!fault) return fn();
  if (fault->kind == FaultKind::kDrop) return Status::OK();
  return Injected(*fault, what.empty() ? path : what);
}

class FaultSequentialFile final : public SequentialFile {
 public:
  FaultSequentialFile(std::unique_ptr<SequentialFile> base, std::shared_ptr<FaultState> state)
      : base_(std::move(base)), state_(std::move(state)) {}

  Result<std::string_view> Read(size_t n, char* scratch) override {
    if (auto fault = state_->Check(FaultOp::kRead, path())) return Err(Injected(*fault, path()));
    return base_->Read(n, scratch);
  }
  Status Skip(uint64_t n) override { return base_->Skip(n); }
  const std::string& path() const override { return base_->path(); }

 private:
  const std::unique_ptr<SequentialFile> base_;
  const std::shared_ptr<FaultState> state_;
};

class FaultRandomAccessFile final : public RandomAccessFile {
 public:
  FaultRandomAccessFile(std::unique_ptr<RandomAccessFile> base, std::shared_ptr<FaultState> state)
      : base_(std::move(base)), state_(std::move(state)) {}

  Result<std::string_view> Read(uint64_t offset, size_t n, char* scratch) const override {
    if (auto fault = state_->Check(FaultOp::kRead, path())) return Err(Injected(*fault, path()));
    return base_->Read(offset, n, scratch);
  }
  uint64_t size() const override { return base_->size(); }
  const std::string& path() const override { return base_->path(); }

 private:
  const std::unique_ptr<RandomAccessFile> base_;
  const std::shared_ptr<FaultState> state_;
};

class FaultWritableFile final : public WritableFile {
 public:
  // keep: if set, only that many bytes reach the file and the rest vanish silently.
  FaultWritableFile(std::unique_ptr<WritableFile> base, std::shared_ptr<FaultState> state,
                    std::optional<uint64_t> keep)
      : base_(std::move(base)), state_(std::move(state)), keep_(keep) {}

  Status Append(std::string_view data) override {
    std::optional<FaultSpec> fault = state_->Check(FaultOp::kAppend, path());
    if (fault && fault->kind == FaultKind::kDrop) return Status::OK();
    if (fault) {
      Status s = Pass(data.substr(0, data.size() / 2));
      if (!s.ok()) return s;
      return Injected(*fault, path());
    }
    return Pass(data);
  }
  Status Flush() override { return base_->Flush(); }
  Status Sync() override {
    return Guard(*state_, FaultOp::kSync, path(), [&] { return base_->Sync(); });
  }
  Status Close() override {
    return Guard(*state_, FaultOp::kClose, path(), [&] { return base_->Close(); });
  }
  const std::string& path() const override { return base_->path(); }

 private:
  // Appends to the base file, minus whatever a truncation fault swallows.
  Status Pass(std::string_view data) {
    if (keep_) {
      uint64_t room = *keep_ > written_ ? *keep_ - written_ : 0;
      written_ += data.size();
      data = data.substr(0, static_cast<size_t>(std::min<uint64_t>(room, data.size())));
    }
    return base_->Append(data);
  }

  const std::unique_ptr<WritableFile> base_;
  const std::shared_ptr<FaultState> state_;
  const std::optional<uint64_t> keep_;
  uint64_t written_ = 0;
};

class FaultEnvImpl final : public FaultEnv {
 public:
  explicit FaultEnvImpl(Env* base) : base_(base), state_(std::make_shared<FaultState>()) {}

  Status Inject(const FaultSpec& spec) override;
  void Clear() override { state_->Clear(); }
  int fired() const override { return state_->fired(); }
  int seen(FaultOp op) const override { return state_->seen(op); }

  Capabilities capabilities() const override { return base_->capabilities(); }

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    if (auto fault = state_->Check(FaultOp::kNewSequential, path)) return Err(Injected(*fault, path));
    NUTCHFS_ASSIGN_OR_RETURN(auto file, base_->NewSequentialFile(path));
    return std::make_unique<FaultSequentialFile>(std::move(file), state_);
  }

  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(const std::string& path) override {
    if (auto fault = state_->Check(FaultOp::kNewRandomAccess, path)) {
      return Err(Injected(*fault, path));
    }
    NUTCHFS_ASSIGN_OR_RETURN(auto file, base_->NewRandomAccessFile(path));
    return std::make_unique<FaultRandomAccessFile>(std::move(file), state_);
  }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    std::optional<FaultSpec> fault = state_->Check(FaultOp::kNewWritable, path);
    if (fault && fault->kind == FaultKind::kError) return Err(Injected(*fault, path));
    NUTCHFS_ASSIGN_OR_RETURN(auto file, base_->NewWritableFile(path));
    std::optional<uint64_t> keep;
    if (fault) keep = fault->keep_bytes;
    return std::make_unique<FaultWritableFile>(std::move(file), state_, keep);
  }

  Status CreateExclusive(const std::string& path, std::string_view contents) override {
    return Guard(*state_, FaultOp::kCreateExclusive, path,
                 [&] { return base_->CreateExclusive(path, contents); });
  }

  bool FileExists(const std::string& path) override { return base_->FileExists(path); }

  Result<uint64_t> GetFileSize(const std::string& path) override {
    if (auto fault = state_->Check(FaultOp::kGetFileSize, path)) return Err(Injected(*fault, path));
    return base_->GetFileSize(path);
  }

  Result<std::vector<std::string>> GetChildren(const std::string& dir) override {
    if (auto fault = state_->Check(FaultOp::kGetChildren, dir)) return Err(Injected(*fault, dir));
    return base_->GetChildren(dir);
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    return Guard(
        *state_, FaultOp::kRename, from, [&] { return base_->RenameFile(from, to); },
        from + " to " + to);
  }
  Status RemoveFile(const std::string& path) override {
    return Guard(*state_, FaultOp::kRemove, path, [&] { return base_->RemoveFile(path); });
  }
  Status CreateDirs(const std::string& dir) override {
    return Guard(*state_, FaultOp::kCreateDirs, dir, [&] { return base_->CreateDirs(dir); });
  }
  Status RemoveDirRecursively(const std::string& dir) override {
    return base_->RemoveDirRecursively(dir);
  }
  Status SyncDir(const std::string& dir) override {
    return Guard(*state_, FaultOp::kSyncDir, dir, [&] { return base_->SyncDir(dir); });
  }

 private:
  Env* const base_;
  const std::shared_ptr<FaultState> state_;
};

Status FaultEnvImpl::Inject(const FaultSpec& spec) {
  const bool returns_data = spec.op == FaultOp::kNewSequential ||
                            spec.op == FaultOp::kNewRandomAccess || spec.op == FaultOp::kRead ||
                            spec.op == FaultOp::kGetFileSize || spec.op == FaultOp::kGetChildren ||
                            spec.op == FaultOp::kNewWritable;
  if (spec.kind == FaultKind::kDrop && returns_data) {
    return Status::InvalidArgument(std::string("cannot drop a ") + OpName(spec.op));
  }
  if (spec.kind == FaultKind::kTruncate && spec.op != FaultOp::kNewWritable) {
    return Status::InvalidArgument("truncation applies to files opened for writing only");
  }
  if (spec.nth < 1) return Status::InvalidArgument("nth counts from 1");
  if (spec.error != 0 && spec.kind != FaultKind::kError) {
    return Status::InvalidArgument("an errno goes with kError only");
  }
  state_->Arm(spec);
  return Status::OK();
}

}  // namespace

std::unique_ptr<FaultEnv> NewFaultEnv(Env* base) { return std::make_unique<FaultEnvImpl>(base); }

}  // namespace nutchfs
