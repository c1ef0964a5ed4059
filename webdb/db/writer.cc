// The single-machine driver: edits for every stage go into local external sorters in
// the db's work area; the update engine runs the stages; the new manifest is installed.
#include "webdb/db/writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "nutchfs/clock.h"
#include "nutchfs/scoped_lock.h"
#include "webdb/calls/call_log.h"
#include "webdb/db/manifest.h"
#include "webdb/db/stage_sorters.h"
#include "webdb/db/update.h"
#include "webdb/db/versions.h"

namespace webdb {
namespace {

// Every stage's edits are sorted locally, kept apart by key range, and the sorted
// streams are the stage's input.
class LocalPlumbing final : public StagePlumbing {
 public:
  LocalPlumbing(nutchfs::Env& env, const std::string& work_dir, size_t memory_budget,
                bool threads)
      : sorters_(env, work_dir, memory_budget, threads, kMaxPartitions) {}

  size_t max_partitions() const override { return sorters_.max_partitions(); }
  void SplitEdits(int stage, std::vector<std::string> splits) override {
    sorters_.Split(stage, std::move(splits));
  }
  const std::vector<std::string>& splits(int stage) const override {
    return sorters_.splits(stage);
  }
  EditSink& Sink(int stage, size_t producer) override { return sorters_.Sink(stage, producer); }
  std::optional<uint64_t> Count(int stage) const override { return sorters_.count(stage); }
  Status EndStage(int stage) override { return sorters_.EndStage(stage); }
  Result<std::unique_ptr<EditIterator>> Incoming(int stage, size_t partition) override {
    return sorters_.Finish(stage, partition);
  }
  Result<std::unique_ptr<EditIterator>> IncomingAgain(int stage, size_t partition) override {
    return sorters_.Again(stage, partition);
  }

  // REQUIRES: before the first EndStage().
  uint64_t logged() const { return sorters_.count(1) + sorters_.count(3); }

 private:
  StageSorters sorters_;
};

// Lane i logs through producer i of stages 1 and 3: each lane fills sorters of its own.
std::vector<CallLogLanes::Sinks> LaneSinks(StagePlumbing& plumbing, size_t count) {
  std::vector<CallLogLanes::Sinks> sinks;
  for (size_t i = 0; i < count; ++i) sinks.push_back({&plumbing.Sink(1, i), &plumbing.Sink(3, i)});
  return sinks;
}

class SingleWriter final : public Writer {
 public:
  SingleWriter(nutchfs::Env& env, std::string dir, WriterOptions options, Manifest current,
               std::unique_ptr<nutchfs::ScopedLock> lock, size_t sorter_budget)
      : env_(env),
        dir_(std::move(dir)),
        options_(std::move(options)),
        current_(std::move(current)),
        lock_(std::move(lock)),
        plumbing_(env, dir_ + "/work", sorter_budget, options_.threads),
        lanes_(LaneSinks(plumbing_, options_.threads ? plumbing_.max_partitions() : 1),
               /*writer=*/0) {}

  Status AddPage(const Page& p) override { return Own().AddPage(p); }
  Status AddPageWithScore(const Page& p) override { return Own().AddPageWithScore(p); }
  Status AddPageIfNotPresent(const Page& p) override { return Own().AddPageIfNotPresent(p); }
  Status AddPageIfNotPresent(const Page& p, const Link& l) override {
    return Own().AddPageIfNotPresent(p, l);
  }
  Status DeletePage(std::string_view url) override { return Own().DeletePage(url); }
  Status AddLink(const Link& l) override { return Own().AddLink(l); }
  CallLanes& lanes() override { return lanes_; }

  // An unclosed session is abandoned: nothing was published; drop its work area.
  ~SingleWriter() override {
    if (closed_) return;
    Status ignored = env_.RemoveDirRecursively(dir_ + "/work");
    (void)ignored;  // the next Open() removes it anyway
  }

  Status Close() override {
    closed_ = true;
    Status s = Apply();
    if (!s.ok()) RemoveUnfinished();
    Status cleaned = env_.RemoveDirRecursively(dir_ + "/work");
    Status released = lock_->Release();
    // So that a power loss now finds no LOCK (it would be broken as stale anyway).
    if (released.ok()) released = env_.SyncDir(dir_);
    if (!s.ok()) return s;
    return cleaned.ok() ? released : cleaned;
  }

  void set_keep(uint32_t keep) override { keep_ = keep; }

  // Keeps the logged edits apart by the key ranges the update merges at once.
  Status SplitEdits() { return SplitStageEdits(env_, dir_, current_, plumbing_); }
  uint64_t version() const { return current_.version; }

 private:
  // Lane 0 at the session's next call, for the writer's own calls.
  CallSink& Own() { return lanes_.Lane(0, lanes_.next_call()); }

  Status Apply() {
    // An empty session changes nothing: the db stays at its version (unless the
    // session changes the keep setting: then the new version shares every table).
    const bool keep_changes = keep_ && *keep_ != current_.keep;
    if (plumbing_.logged() == 0 && !keep_changes) return Status::OK();
    Manifest next = current_;
    next.version = current_.version + 1;
    if (plumbing_.logged() > 0) {
      UpdateParams params{dir_, next.version, 0, &options_};
      auto updated = RunUpdate(env_, current_, params, plumbing_);
      if (!updated) {
        Status ignored = CollectGarbage(env_, dir_, current_);
        (void)ignored;  // this session's files; the next Open() removes them anyway
        return updated.error().WithContext(
            fmt::format("{}: version {} not published", dir_, next.version));
      }
      next = std::move(*updated);
    }
    next.time_ms = nutchfs::NowMs();
    next.keep = keep_.value_or(current_.keep);
    next.restores = 0;
    NUTCHFS_RETURN_IF_ERROR(
        PublishVersion(env_, dir_, current_, next, options_.hooks.before_step));
    // The removals durable while LOCK still is: a power loss never shows old files
    // without the LOCK that marks them as an update's.
    return env_.SyncDir(dir_);
  }

  // After a failed update (a full disk, an I/O error): removes the files no kept or
  // pinned version uses — its unfinished tables and manifest, temporary files — so that
  // the db is left as it was (or as published, when the failure came after the switch).
  // Best effort: the update's error is the one to report, and the next Open removes
  // what is left.
  void RemoveUnfinished() {
    auto current = ReadCurrentManifest(env_, dir_);
    if (!current) return;
    Status ignored = CollectGarbage(env_, dir_, *current);
    (void)ignored;
  }

  nutchfs::Env& env_;
  const std::string dir_;
  const WriterOptions options_;
  const Manifest current_;
  std::unique_ptr<nutchfs::ScopedLock> lock_;
  LocalPlumbing plumbing_;
  CallLogLanes lanes_;
  std::optional<uint32_t> keep_;
  bool closed_ = false;
};

}  // namespace

Status Writer::Create(nutchfs::Env& env, const std::string& dir, uint32_t keep) {
  if (env.FileExists(dir + "/CURRENT")) {
    return Status::InvalidArgument("a webdb already exists at " + dir);
  }
  NUTCHFS_ASSIGN_OR_RETURN(Manifest m, CreateEmptyTables(env, dir));
  m.time_ms = nutchfs::NowMs();
  m.keep = keep;
  return InstallManifest(env, dir, m);
}

Result<std::unique_ptr<Writer>> Writer::Open(nutchfs::Env& env, const std::string& dir,
                                             WriterOptions options) {
  if (!env.FileExists(dir + "/CURRENT")) return Err(Status::NotFound("no webdb at " + dir));
  // The lock first: the version read after it cannot be replaced by another writer
  // before this one has published (or given up).
  NUTCHFS_ASSIGN_OR_RETURN(auto lock, nutchfs::ScopedLock::Acquire(env, dir + "/LOCK", "webdb writer"));
  // LOCK durable before any file of the update: whatever of the update a power loss
  // keeps, it keeps the LOCK that marks it as unfinished (docs/DESIGN.md).
  NUTCHFS_RETURN_IF_ERROR(env.SyncDir(dir));
  NUTCHFS_ASSIGN_OR_RETURN(Manifest current, ReadCurrentManifest(env, dir));
  auto sorter_budget = SorterBudget(env, dir, current, options.memory_budget);
  if (!sorter_budget) {
    return Err(sorter_budget.error().WithContext(
        fmt::format("{}: version {} not published", dir, current.version + 1)));
  }
  // Whatever an interrupted session left behind is not part of any version.
  NUTCHFS_RETURN_IF_ERROR(env.RemoveDirRecursively(dir + "/work"));
  NUTCHFS_RETURN_IF_ERROR(env.CreateDirs(dir + "/work"));
  NUTCHFS_RETURN_IF_ERROR(CollectGarbage(env, dir, current));
  auto writer = std::make_unique<SingleWriter>(env, dir, std::move(options), std::move(current),
                                               std::move(lock), *sorter_budget);
  Status split = writer->SplitEdits();
  if (!split.ok()) {
    return Err(split.WithContext(fmt::format("{}: version {} not published", dir,
                                             writer->version() + 1)));
  }
  return std::unique_ptr<Writer>(std::move(writer));
}

}  // namespace webdb
