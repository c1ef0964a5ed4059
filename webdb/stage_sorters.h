// StageSorters: the external sorters of a session's five edit streams (stage s's edits,
// webdb/update.h), for the plumbing of both writers — the single-machine writer reads
// each sorted stream itself, the distributed writer cuts it into sections and sends
// them. The sorters share one pool of the memory budget (sort_memory.h): only a few hold
// edits at a time (the call log fills stages 1 and 3; stage s fills later ones while
// stage s's sorter is read), so a sorter that is alone may use the whole budget. Stage
// 3's sorted edits are read twice: by stage 3, and again by stage 5 (webdb/update.h).
//
// Owns the sorters and their pool; the Env must outlive it. Not thread-safe.
#ifndef WEBDB_STAGE_SORTERS_H_
#define WEBDB_STAGE_SORTERS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "nutchfs/env.h"
#include "webdb/iterator.h"
#include "webdb/sort_memory.h"
#include "webdb/sorter.h"
#include "webdb/update.h"

namespace webdb {

class StageSorters {
 public:
  // Runs spill into work_dir as "stage<s>-run-*". With sort_thread, each sorter sorts
  // its memory in chunks on a thread of its own (webdb/sorter.h); same result.
  StageSorters(nutchfs::Env& env, const std::string& work_dir, size_t memory_budget,
               bool sort_thread);
  StageSorters(const StageSorters&) = delete;
  StageSorters& operator=(const StageSorters&) = delete;

  // Where stage `stage`'s edits go (1..kNumStages). REQUIRES: before Finish(stage).
  EditSink& Sink(int stage) { return *sorters_[stage - 1]; }
  // Edits added for `stage` so far. REQUIRES: before Finish(stage).
  uint64_t count(int stage) const { return sorters_[stage - 1]->count(); }

  // Ends stage `stage`'s edits and returns them sorted. The sorters of earlier stages
  // are done and freed (but stage 3's); later ones that spill anyway give their memory
  // back for the sorters filling now. Called once per stage, for stages in increasing
  // order; the iterator must be destroyed before the next call.
  Result<std::unique_ptr<EditIterator>> Finish(int stage);
  // Stage 3's sorted edits once more. REQUIRES: Finish(3) was called and its iterator
  // destroyed.
  Result<std::unique_ptr<EditIterator>> Stage3Again() { return sorters_[2]->Again(); }

 private:
  SortMemory memory_;  // shared by the sorters, so declared (and destroyed) around them
  std::array<std::unique_ptr<Sorter>, kNumStages> sorters_;
};

}  // namespace webdb

#endif  // WEBDB_STAGE_SORTERS_H_
