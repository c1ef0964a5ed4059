// RankDb: `webdb rank` on a single-machine db (docs/DESIGN.md, "Link analysis"): one
// session under the db's writer lock (webdb/db/db_session.h) that computes every page's
// score by the rank engine (rank_engine.h) and publishes them as one new version, its
// page tables rewritten and its link tables shared with the version before.
//
// A rank is idempotent: when the current version is the result of a rank with the same
// options (its manifest's rank line), it does nothing, so a rank killed after publishing
// and run again leaves the db as one uninterrupted run does. Not thread-safe.
#ifndef WEBDB_RANK_RANK_DB_H_
#define WEBDB_RANK_RANK_DB_H_

#include <cstdint>
#include <string>

#include "nutchfs/env.h"
#include "webdb/rank/rank_engine.h"

namespace webdb {

struct RankReport {
  uint64_t version = 0;         // the new version; the current one when nothing was done
  bool already_ranked = false;  // the current version is this rank's result already
  uint64_t pages = 0, links = 0;
  RankInfo info;  // when a rank ran or had run: its options, iterations, last L1 change
};

// params.dir is the db; params.manifest, work_dir and new_version are set here. Busy
// while another session holds the db's lock; InvalidArgument for bad options or a
// starting score beyond what the sums hold (rank_math.h). On any error the db stays at
// its version.
Result<RankReport> RankDb(nutchfs::Env& env, RankParams params);

}  // namespace webdb

#endif  // WEBDB_RANK_RANK_DB_H_
