// Compaction (docs/DESIGN.md, "Layered tables"): every table that has runs merged with
// them into a new base, so that lookups read one layer and scans no row twice. `webdb
// compact DB` publishes it as a new version under the db's LOCK, like a rollback; the
// distributed db's sections go through the same CompactTables (distwriter/round_versions.h,
// RewriteDistSections). The rows are unchanged: only their files are.
//
// Memory: one block a layer and the new base's index; stateless, thread-safe as the Env.
#ifndef WEBDB_DB_COMPACT_H_
#define WEBDB_DB_COMPACT_H_

#include <cstdint>
#include <string>

#include "nutchfs/env.h"
#include "webdb/db/manifest.h"
#include "webdb/db/versions.h"

namespace webdb {

// m, whose files are in dir, as `version`, with each table that has runs merged into a new
// base `<table>-<version>.tbl` (one part, written and synced in dir); the blocks of the old
// base that no run touches are copied whole. m itself when no table has runs.
Result<Manifest> CompactTables(nutchfs::Env& env, const std::string& dir, const Manifest& m,
                               uint64_t version);

// Compacts the current version of the db in dir into a new version (hook: "compact", then
// PublishVersion's steps). Busy when a writer holds its LOCK. The db's version is
// returned, and done is false when no table had runs (nothing is published then).
Result<RollbackResult> CompactDb(nutchfs::Env& env, const std::string& dir,
                                 const StepHook& hook);

}  // namespace webdb

#endif  // WEBDB_DB_COMPACT_H_
