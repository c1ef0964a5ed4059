// StageHooks: where an update is, told to its driver (the distributed writer times its
// stages by it) and to the tools that report each step's seconds. Called by the thread
// running the update.
#ifndef WEBDB_DB_STAGE_HOOKS_H_
#define WEBDB_DB_STAGE_HOOKS_H_

#include <functional>
#include <string_view>

namespace webdb {

// Where a session is, for its driver and for tests. Either member may be empty.
struct StageHooks {
  // Called as merge stage `stage` (1..5, webdb/db/update.h) begins, before its edits are
  // gathered: the distributed writer times its stages by it.
  std::function<void(int stage)> on_stage;
  // Called with the name of each step before it begins, "stage 1 pagesByURL" ...
  // "stage 5 linksByMD5 fixes" (StageName), then "publish" for the single-machine
  // writer; the distributed writer adds its own (docs/DISTRIBUTED.md). The tools time
  // their steps by it; the crash tests' builds of them kill the process at a named one
  // (tools/step_observer.h).
  std::function<void(std::string_view step)> before_step;
};

}  // namespace webdb

#endif  // WEBDB_DB_STAGE_HOOKS_H_
