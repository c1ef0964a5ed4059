// One distributed writer's part of a round: roll forward any round its peers decided,
// log its calls, agree on the round with its peers (stage 0), run the five stages over
// its section exchanging edit files, commit (commit.h), clean up. A writer that fails
// tells its peers (a failure marker). See docs/DISTRIBUTED.md.
#ifndef DISTWRITER_ROUND_H_
#define DISTWRITER_ROUND_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/exchange.h"
#include "webdb/db/layer_plan.h"
#include "webdb/rank/rank_engine.h"
#include "webdb/util/progress.h"

namespace distwriter {

struct RunOptions {
  int writer = 0;
  std::vector<std::string> call_files;  // "-" is standard input
  // The round's session (docs/DISTRIBUTED.md, "Sessions"): the same for the k writers of
  // one round and for its reruns, another for a new round; empty: none.
  std::string session;
  size_t memory_budget = size_t{256} << 20;
  webdb::ProgressFn progress;
  // Test kill points, as webdb::StageHooks::before_step: called with the name of each
  // step before it begins — "stage 0", the engine's "stage 1 ..".."stage 5 ..", "commit",
  // the commit's steps (commit.h) — and "done" once the round is installed on this
  // machine, before the clean-up (docs/DISTRIBUTED.md, "Restart").
  std::function<void(std::string_view)> before_step;
  // Where the process is told to stop (a signal number once it is; tools/stop_signals.h):
  // the writer then fails at its next wait or stage as it fails on an error, telling its
  // peers, retracting its stage 0 files, removing its work area and releasing its LOCK.
  // Not owned; null: never.
  const std::atomic<int>* stop = nullptr;
  // The Env through which every machine's root and the call files are reached
  // (nutchfs::NutchFsOptions::env), as LevelDB's Options::env; null: each machine's own
  // (its local directory, or SFTP). The tests run k writers as threads of one process
  // over one in-memory or fault-injecting Env through it. Not owned.
  nutchfs::Env* env = nullptr;
  // A rank round (docs/DISTRIBUTED.md, "Rank rounds") instead of a round of calls: the
  // writers compute every page's score together; call_files is empty. on_iteration is
  // told of each iteration (its L1 change, this writer's seconds).
  std::optional<webdb::RankOptions> rank;
  std::function<void(const webdb::IterationReport&)> on_iteration;
  // How the stages of the writer's section write their tables and read their old rows
  // (webdb::WriterOptions::layers and seeks): planned from the section's counts in use;
  // tests force the others, to compare both ways.
  webdb::LayerPolicy layers = webdb::LayerPolicy::kPlan;
  webdb::SeekPolicy seeks = webdb::SeekPolicy::kPlan;
  // The machine the writer runs as: empty for its own; else a machine of its group w<i>,
  // a replica holder (a takeover, docs/DISTRIBUTED.md, "Takeover").
  std::string machine;
};

struct RoundReport {
  uint64_t version = 0;       // the version committed (or found committed)
  bool already_applied = false;
  uint64_t calls = 0;
  std::array<double, kCommitStage + 1> stage_seconds{};
  std::array<StageTraffic, kCommitStage + 1> traffic{};
  uint64_t bytes_sent = 0;  // in every stage (a rank round's are numbered beyond 6)
  uint64_t pages = 0, links = 0;  // of the whole db after the round
  // A rank round: how its scores were computed (the installed round's, when it was this
  // rank's result already); nullopt when the db has no pages to rank (nothing published).
  std::optional<webdb::RankInfo> rank;
};

// Thread-safe: writers of one round may run as threads of one process (options.env).
Result<RoundReport> RunRound(const DistConfig& config, const RunOptions& options);

}  // namespace distwriter

#endif  // DISTWRITER_ROUND_H_
