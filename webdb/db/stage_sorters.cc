#include "webdb/db/stage_sorters.h"

#include <algorithm>

#include "webdb/table/merging_iterator.h"

namespace webdb {

// A producer's sink for one stage: each edit goes to the sorter of its partition.
class StageSorters::Router final : public EditSink {
 public:
  Router(const StageSorters& sorters, int stage, size_t producer)
      : sorters_(sorters), stage_(stage), producer_(producer) {}

  Status Add(const EditView& edit) override {
    const std::vector<std::string>& splits = sorters_.splits(stage_);
    const auto partition = static_cast<size_t>(
        std::upper_bound(splits.begin(), splits.end(), edit.key) - splits.begin());
    return sorters_.At(stage_, producer_, partition).Add(edit);
  }

 private:
  const StageSorters& sorters_;
  const int stage_;
  const size_t producer_;
};

// A stage's sorters, one for each producer and range, are all read while the stage runs,
// so they share the read memory one sorter alone would take.
StageSorters::StageSorters(nutchfs::Env& env, const std::string& work_dir, size_t memory_budget,
                           bool sort_thread, size_t max_partitions, size_t producers)
    : max_partitions_(max_partitions),
      producers_(producers == 0 ? max_partitions : producers),
      memory_(memory_budget) {
  for (int s = 1; s <= kNumStages; ++s) {
    for (size_t w = 0; w < producers_; ++w) {
      for (size_t p = 0; p < max_partitions_; ++p) {
        const std::string name =
            "stage" + std::to_string(s) + "." + std::to_string(w) + "." + std::to_string(p);
        sorters_[s - 1].push_back(Sorter::Create(env, work_dir, memory_, name, sort_thread,
                                                 producers_ * max_partitions_));
      }
      routers_[s - 1].push_back(std::make_unique<Router>(*this, s, w));
    }
  }
}

StageSorters::~StageSorters() = default;

void StageSorters::Split(int stage, std::vector<std::string> splits) {
  splits_[stage - 1] = std::move(splits);
}

EditSink& StageSorters::Sink(int stage, size_t producer) { return *routers_[stage - 1][producer]; }

uint64_t StageSorters::count(int stage) const {
  uint64_t n = 0;
  for (const auto& sorter : sorters_[stage - 1]) n += sorter->count();
  return n;
}

uint64_t StageSorters::count(int stage, size_t partition) const {
  uint64_t n = 0;
  for (size_t producer = 0; producer < producers_; ++producer) {
    n += At(stage, producer, partition).count();
  }
  return n;
}

Status StageSorters::EndStage(int stage) {
  // Earlier stages are done and their sorted streams consumed: free their memory,
  // except stage 3's, which stage 5 reads again.
  for (int s = 1; s < stage; ++s) {
    if (!ReadAgain(s)) sorters_[s - 1].clear();
  }
  // Later sorters that spill anyway make room for the ones filling during this stage.
  for (int s = stage + 1; s <= kNumStages; ++s) {
    for (const auto& sorter : sorters_[s - 1]) NUTCHFS_RETURN_IF_ERROR(sorter->ReleaseMemory());
  }
  return Status::OK();
}

Result<std::unique_ptr<EditIterator>> StageSorters::Finish(int stage, size_t partition) {
  return Read(stage, partition, /*again=*/false);
}

Result<std::unique_ptr<EditIterator>> StageSorters::Again(int stage, size_t partition) {
  return Read(stage, partition, /*again=*/true);
}

// The producers' sorted streams of the partition: the only one that holds edits, or
// their merge.
Result<std::unique_ptr<EditIterator>> StageSorters::Read(int stage, size_t partition, bool again) {
  std::vector<std::unique_ptr<EditIterator>> holding;
  std::unique_ptr<EditIterator> empty;
  for (size_t w = 0; w < producers_; ++w) {
    Sorter& sorter = At(stage, w, partition);
    NUTCHFS_ASSIGN_OR_RETURN(auto sorted, again ? sorter.Again() : sorter.Finish());
    if (sorter.count() > 0) {
      holding.push_back(std::move(sorted));
    } else if (!empty) {
      empty = std::move(sorted);
    }
  }
  if (holding.empty()) return empty;
  if (holding.size() == 1) return std::move(holding.front());
  return NewMergingEditIterator(std::move(holding));
}

}  // namespace webdb
