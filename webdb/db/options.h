// WriterOptions: what a session of the writer (single machine or one writer of k) may
// use and whom it tells: memory, threads, progress, hooks. Plain values.
#ifndef WEBDB_DB_OPTIONS_H_
#define WEBDB_DB_OPTIONS_H_

#include <cstddef>
#include <cstdint>

#include "webdb/db/layer_plan.h"
#include "webdb/db/stage_hooks.h"
#include "webdb/util/progress.h"

namespace webdb {

struct WriterOptions {
  // Memory the external sorts may use, in bytes.
  size_t memory_budget = size_t{256} << 20;
  // Called now and then during Close(); may be empty.
  ProgressFn progress;
  StageHooks hooks;
  // Sort the edits held in memory in chunks on threads of their own while more edits
  // come in (webdb/sort/sorter.h), and merge the key ranges of a stage at once
  // (webdb/db/update.h). The result is the same either way.
  bool threads = true;
  // A stage is merged in key ranges once its old rows and edits reach twice this many
  // (webdb/db/update.h); the ranges are parts of its new table. Tests lower it to split
  // small tables.
  uint64_t partition_rows = uint64_t{1} << 15;
  // Whether a stage merges into its table's base or writes a run (webdb/db/layer_plan.h):
  // kPlan in use; tests force the others.
  LayerPolicy layers = LayerPolicy::kPlan;
  // Whether a stage that writes a run or no table moves its old rows by seeks or walks
  // them (webdb/db/layer_plan.h): kPlan in use; tests force the others.
  SeekPolicy seeks = SeekPolicy::kPlan;
};

}  // namespace webdb

#endif  // WEBDB_DB_OPTIONS_H_
