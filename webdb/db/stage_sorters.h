// StageSorters: the external sorters of a session's five edit streams (stage s's edits,
// webdb/db/update.h), for the plumbing of both writers — the single-machine writer reads
// each sorted stream itself, the distributed writer cuts it into sections and sends
// them. The sorters share one pool of the memory budget (sort_memory.h): only a few hold
// edits at a time (the call log fills stages 1 and 3; stage s fills later ones while
// stage s's sorter is read), so a sorter that is alone may use the whole budget. Stage
// 3's sorted edits are read twice: by stage 3, and again by stage 5 (webdb/db/update.h).
//
// Partitions: a stage's edits may be kept apart by key range (Split), so that the stage
// merges its ranges at once (docs/DESIGN.md, "Partitions"). Each producer of edits (a
// lane of the call log, or the worker of one partition of the stage before) adds through
// a sink of its own to a sorter of its own for each partition; a partition's sorted stream is the
// merge of its producers' sorters. No two producers add edits of the same key and order
// (docs/DESIGN.md), so that merge does not depend on which producer added what first.
//
// Owns the sorters and their pool; the Env must outlive it. Thread-safety: Split, count,
// EndStage and Finish of a whole stage on one thread; while no such call runs, each
// producer's sink may be used on a thread of its own, and each partition's Finish and
// Again on a thread of its own.
#ifndef WEBDB_DB_STAGE_SORTERS_H_
#define WEBDB_DB_STAGE_SORTERS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/db/update.h"
#include "webdb/sort/sort_memory.h"
#include "webdb/sort/sorter.h"
#include "webdb/table/iterator.h"

namespace webdb {

class StageSorters {
 public:
  // Runs spill into work_dir as "stage<s>.<producer>.<partition>-run-*". With
  // sort_thread, each sorter sorts its memory in chunks on a thread of its own
  // (webdb/sort/sorter.h); same result. Up to max_partitions partitions a stage, and
  // `producers` producers (0: as many as partitions).
  StageSorters(nutchfs::Env& env, const std::string& work_dir, size_t memory_budget,
               bool sort_thread, size_t max_partitions = 1, size_t producers = 0);
  StageSorters(const StageSorters&) = delete;
  StageSorters& operator=(const StageSorters&) = delete;
  ~StageSorters();

  size_t max_partitions() const { return max_partitions_; }
  // Keeps the edits added for stage from now on apart at splits (increasing): partition
  // p holds the keys k with splits[p-1] <= k < splits[p]. REQUIRES: splits.size() <
  // max_partitions(); no edit added for stage yet.
  void Split(int stage, std::vector<std::string> splits);
  const std::vector<std::string>& splits(int stage) const { return splits_[stage - 1]; }

  // Where producer hands the edits for `stage` (1..kNumStages). REQUIRES: producer <
  // the producers, before EndStage(stage).
  EditSink& Sink(int stage, size_t producer = 0);
  // Edits added for `stage` so far, every partition. REQUIRES: before EndStage(stage) or
  // with no sink of the stage in use.
  uint64_t count(int stage) const;
  // Edits added for partition p of `stage` so far. REQUIRES: as count(stage).
  uint64_t count(int stage, size_t partition) const;

  // Ends stage `stage`'s edits: the sorters of earlier stages are done and freed (but
  // stage 3's), later ones that spill anyway give their memory back for the sorters
  // filling now. Called once per stage, for stages in increasing order; the iterators
  // of the stage before must be destroyed by then.
  Status EndStage(int stage);
  // Partition p of stage's edits, sorted. REQUIRES: EndStage(stage); once a partition.
  Result<std::unique_ptr<EditIterator>> Finish(int stage, size_t partition = 0);
  // Partition p of stage's sorted edits once more. REQUIRES: ReadAgain(stage); Finish(stage, p) was called
  // and its iterator destroyed.
  Result<std::unique_ptr<EditIterator>> Again(int stage, size_t partition = 0);

 private:
  class Router;
  Result<std::unique_ptr<EditIterator>> Read(int stage, size_t partition, bool again);
  // The sorter of (stage, producer, partition).
  Sorter& At(int stage, size_t producer, size_t partition) const {
    return *sorters_[stage - 1][producer * max_partitions_ + partition];
  }

  const size_t max_partitions_;
  const size_t producers_;
  SortMemory memory_;  // shared by the sorters, so declared (and destroyed) around them
  std::array<std::vector<std::string>, kNumStages> splits_;
  // Per stage: producer * max_partitions_ + partition; empty once freed.
  std::array<std::vector<std::unique_ptr<Sorter>>, kNumStages> sorters_;
  // Per stage: one sink a producer, routing each edit to the sorter of its partition.
  std::array<std::vector<std::unique_ptr<Router>>, kNumStages> routers_;
};

}  // namespace webdb

#endif  // WEBDB_DB_STAGE_SORTERS_H_
