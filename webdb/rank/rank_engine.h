// The rank engine: one writer's part of a rank session (docs/DESIGN.md, "Link analysis")
// over one db directory — a whole single-machine db, or one writer's section of a
// distributed db — with its peers behind a RankPlumbing. It derives the graph files
// (rank_graph.h), runs the iterations over them (rank_passes.h) and writes the new page
// tables; it returns the manifest of the new version (or section) without installing it.
//
// Steps are named for the driver's before_step (test kill points): "rank graph", "rank links" (the
// join with linksByURL), "rank edges", "rank iteration <i> sums" (pass A), "rank iteration <i>
// scores" (pass B), "rank publish". RunRank is not thread-safe; it uses the caller's thread only.
#ifndef WEBDB_RANK_RANK_ENGINE_H_
#define WEBDB_RANK_RANK_ENGINE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "webdb/db/manifest.h"
#include "webdb/rank/rank_plumbing.h"
#include "webdb/util/progress.h"

namespace webdb {

// One iteration done: how much it changed the scores in all (the L1 norm), and how long
// this writer took for it.
struct IterationReport {
  uint32_t iteration = 0;
  double l1 = 0;
  double seconds = 0;
};

struct RankParams {
  std::string dir;           // holds the tables; receives the new page tables
  std::string manifest;      // names the manifest in messages ("MANIFEST-000007")
  std::string work_dir;      // for the work files; the caller removes it
  uint64_t new_version = 0;  // names the new table files
  RankOptions options;
  size_t memory_budget = size_t{256} << 20;
  ProgressFn progress;
  std::function<void(std::string_view step)> before_step;
  std::function<void(const IterationReport&)> on_iteration;
  // Target ids a block of accumulators holds; 0: as many as half the budget holds (16
  // bytes an id). Tests lower it to make many blocks; the scores are the same.
  uint64_t block_ids = 0;
};

struct RankOutcome {
  // The new version's manifest (old's, with the two page tables replaced and the rank
  // line); nullopt when the db has no pages: there is nothing to rank.
  std::optional<Manifest> manifest;
  RankInfo info;
  uint64_t pages = 0;  // N, every writer's
};

// REQUIRES: ValidateRankOptions(params.options) is OK. On error, new files may be left
// in dir; old is intact.
Result<RankOutcome> RunRank(nutchfs::Env& env, const Manifest& old, const RankParams& params,
                            RankPlumbing& plumbing);

}  // namespace webdb

#endif  // WEBDB_RANK_RANK_ENGINE_H_
