// The single-machine driver: edits for every stage go into local external sorters in
// the db's work area; the update engine runs the stages; the new manifest is installed.
#include "webdb/db/writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "nutchfs/clock.h"
#include "webdb/calls/call_log.h"
#include "webdb/db/db_session.h"
#include "webdb/db/manifest.h"
#include "webdb/db/manifest_table.h"
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
  SingleWriter(std::unique_ptr<DbSession> session, WriterOptions options, size_t sorter_budget)
      : session_(std::move(session)),
        env_(session_->env()),
        dir_(session_->dir()),
        options_(std::move(options)),
        current_(session_->current()),
        plumbing_(env_, session_->work_dir(), sorter_budget, options_.threads),
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

  // An unclosed session is abandoned: nothing was published; the session's destructor
  // drops its work area.
  Status Close() override { return session_->End(Apply()); }

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
    if (plumbing_.logged() == 0) {
      // A new keep setting alone: the version shares every table, read by no stage.
      NUTCHFS_RETURN_IF_ERROR(CheckCarriedTables(env_, dir_, current_, next,
                                                 ManifestFileName(current_.version))
                                  .WithContext(fmt::format("{}: version {} not published", dir_,
                                                           next.version)));
    } else {
      UpdateParams params{dir_, next.version, 0, &options_, keep_.value_or(current_.keep)};
      auto updated = RunUpdate(env_, current_, params, plumbing_);
      if (!updated) {
        return updated.error().WithContext(
            fmt::format("{}: version {} not published", dir_, next.version));
      }
      next = std::move(*updated);
    }
    next.time_ms = nutchfs::NowMs();
    next.keep = keep_.value_or(current_.keep);
    next.restores = 0;
    return session_->Publish(next, options_.hooks.before_step);
  }

  std::unique_ptr<DbSession> session_;
  nutchfs::Env& env_;
  const std::string& dir_;
  const WriterOptions options_;
  const Manifest& current_;
  LocalPlumbing plumbing_;
  CallLogLanes lanes_;
  std::optional<uint32_t> keep_;
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
  NUTCHFS_ASSIGN_OR_RETURN(auto session, DbSession::Open(env, dir, "webdb writer"));
  const uint64_t next = session->current().version + 1;
  auto sorter_budget = SorterBudget(env, dir, session->current(), options.memory_budget);
  if (!sorter_budget) {
    return Err(sorter_budget.error().WithContext(
        fmt::format("{}: version {} not published", dir, next)));
  }
  auto writer =
      std::make_unique<SingleWriter>(std::move(session), std::move(options), *sorter_budget);
  Status split = writer->SplitEdits();
  if (!split.ok()) {
    return Err(split.WithContext(fmt::format("{}: version {} not published", dir, next)));
  }
  return std::unique_ptr<Writer>(std::move(writer));
}

}  // namespace webdb
