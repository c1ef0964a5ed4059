#include "webdb/stage_sorters.h"

namespace webdb {

StageSorters::StageSorters(nutchfs::Env& env, const std::string& work_dir, size_t memory_budget,
                           bool sort_thread)
    : memory_(memory_budget) {
  for (int s = 1; s <= kNumStages; ++s) {
    sorters_[s - 1] =
        Sorter::Create(env, work_dir, memory_, "stage" + std::to_string(s), sort_thread);
  }
}

Result<std::unique_ptr<EditIterator>> StageSorters::Finish(int stage) {
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

}  // namespace webdb
