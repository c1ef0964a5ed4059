// The single-machine driver: edits for every stage go into local external sorters in
// the db's work area; the update engine runs the stages; the new manifest is installed.
#include "webdb/writer.h"

#include <array>
#include <optional>

#include "nutchfs/scoped_lock.h"
#include "webdb/call_log.h"
#include "webdb/manifest.h"
#include "webdb/sort_memory.h"
#include "webdb/sorter.h"
#include "webdb/update.h"

namespace webdb {
namespace {

// Every stage's sorter takes its memory from one pool of the session's budget: only a
// few hold edits at a time (the log fills stages 1 and 3; stage s fills later ones
// while stage s's sorter is read).
class LocalPlumbing final : public StagePlumbing {
 public:
  LocalPlumbing(nutchfs::Env& env, const std::string& work_dir, size_t memory_budget,
                bool sort_thread)
      : memory_(memory_budget) {
    for (int s = 1; s <= kNumStages; ++s) {
      sorters_[s - 1] =
          Sorter::Create(env, work_dir, memory_, "stage" + std::to_string(s), sort_thread);
    }
  }

  EditSink& Sink(int stage) override { return *sorters_[stage - 1]; }

  Result<std::unique_ptr<EditIterator>> Incoming(int stage) override {
    // Earlier stages are done and their sorted streams consumed: free their memory,
    // except stage 3's, which stage 5 reads again.
    for (int s = 1; s < stage; ++s) {
      if (s != 3) sorters_[s - 1].reset();
    }
    // Later sorters that spill anyway make room for the ones filling during this stage.
    for (int s = stage + 1; s <= kNumStages; ++s) {
      NUTCHFS_RETURN_IF_ERROR(sorters_[s - 1]->ReleaseMemory());
    }
    return sorters_[stage - 1]->Finish();
  }

  Result<std::unique_ptr<EditIterator>> IncomingStage3Again() override {
    return sorters_[2]->Again();
  }

  // REQUIRES: before the first Incoming().
  uint64_t logged() const { return sorters_[0]->count() + sorters_[2]->count(); }

 private:
  SortMemory memory_;
  std::array<std::unique_ptr<Sorter>, kNumStages> sorters_;
};

class SingleWriter final : public Writer {
 public:
  SingleWriter(nutchfs::Env& env, std::string dir, WriterOptions options, Manifest current,
               std::unique_ptr<nutchfs::ScopedLock> lock)
      : env_(env),
        dir_(std::move(dir)),
        options_(std::move(options)),
        current_(std::move(current)),
        lock_(std::move(lock)),
        plumbing_(env, dir_ + "/work", options_.memory_budget, options_.sort_thread),
        log_(plumbing_.Sink(1), plumbing_.Sink(3), /*writer=*/0) {}

  Status AddPage(const Page& p) override { return log_.AddPage(p); }
  Status AddPageWithScore(const Page& p) override { return log_.AddPageWithScore(p); }
  Status AddPageIfNotPresent(const Page& p) override { return log_.AddPageIfNotPresent(p); }
  Status AddPageIfNotPresent(const Page& p, const Link& l) override {
    return log_.AddPageIfNotPresent(p, l);
  }
  Status DeletePage(std::string_view url) override { return log_.DeletePage(url); }
  Status AddLink(const Link& l) override { return log_.AddLink(l); }

  // An unclosed session is abandoned: nothing was published; drop its work area.
  ~SingleWriter() override {
    if (closed_) return;
    Status ignored = env_.RemoveDirRecursively(dir_ + "/work");
    (void)ignored;  // the next Open() removes it anyway
  }

  Status Close() override {
    closed_ = true;
    Status s = Apply();
    Status cleaned = env_.RemoveDirRecursively(dir_ + "/work");
    Status released = lock_->Release();
    if (!s.ok()) return s;
    return cleaned.ok() ? released : cleaned;
  }

 private:
  Status Apply() {
    // An empty session changes nothing: the db stays at its version.
    if (plumbing_.logged() == 0) return Status::OK();
    UpdateParams params{dir_, current_.version + 1, 0, &options_};
    NUTCHFS_ASSIGN_OR_RETURN(Manifest next, RunUpdate(env_, current_, params, plumbing_));
    if (options_.before_step) options_.before_step("publish");
    NUTCHFS_RETURN_IF_ERROR(InstallManifest(env_, dir_, next));
    return RemoveObsoleteFiles(env_, dir_, {&next});
  }

  nutchfs::Env& env_;
  const std::string dir_;
  const WriterOptions options_;
  const Manifest current_;
  std::unique_ptr<nutchfs::ScopedLock> lock_;
  LocalPlumbing plumbing_;
  CallLog log_;
  bool closed_ = false;
};

}  // namespace

Status Writer::Create(nutchfs::Env& env, const std::string& dir) {
  if (env.FileExists(dir + "/CURRENT")) {
    return Status::InvalidArgument("a webdb already exists at " + dir);
  }
  NUTCHFS_ASSIGN_OR_RETURN(Manifest m, CreateEmptyTables(env, dir));
  return InstallManifest(env, dir, m);
}

Result<std::unique_ptr<Writer>> Writer::Open(nutchfs::Env& env, const std::string& dir,
                                             WriterOptions options) {
  if (!env.FileExists(dir + "/CURRENT")) return Err(Status::NotFound("no webdb at " + dir));
  // The lock first: the version read after it cannot be replaced by another writer
  // before this one has published (or given up).
  NUTCHFS_ASSIGN_OR_RETURN(auto lock, nutchfs::ScopedLock::Acquire(env, dir + "/LOCK", "webdb writer"));
  NUTCHFS_ASSIGN_OR_RETURN(Manifest current, ReadCurrentManifest(env, dir));
  // Whatever an interrupted session left behind is not part of any version.
  NUTCHFS_RETURN_IF_ERROR(env.RemoveDirRecursively(dir + "/work"));
  NUTCHFS_RETURN_IF_ERROR(env.CreateDirs(dir + "/work"));
  NUTCHFS_RETURN_IF_ERROR(RemoveObsoleteFiles(env, dir, {&current}));
  return std::unique_ptr<Writer>(
      new SingleWriter(env, dir, std::move(options), std::move(current), std::move(lock)));
}

}  // namespace webdb
