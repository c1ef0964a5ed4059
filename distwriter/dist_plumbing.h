// DistPlumbing: the distributed writer's StagePlumbing (webdb/db/update.h). Edits meant for
// a stage are sorted locally; when the stage begins, the sorted stream is cut by
// section into exactly k edit files (empty ones too), each sent to the writer owning
// that section; then the k files addressed to this writer are awaited and merged
// (ties by order, then by sender). This writer's own section is not sent: where its
// bounds are known before the stage's first edit (every stage but stage 1 of a db's first
// round, whose url breakpoints are chosen after the calls are logged), the stage's edits
// are kept apart at them in the sorters and the own section goes from its sorter to the
// merge, written nowhere; otherwise it is written with the others and read where it was
// written. With k = 1 the sorted stream goes to the stage directly. The local sorting is
// webdb::StageSorters', as in the single-machine writer. A writer's section is one key
// range: the plumbing offers the engine no partitions (webdb/db/update.h), so a writer
// merges each stage as a whole. The stage's edits are counted (Count) once the k files
// are opened, from their footers and the own section's sorter, so that the engine plans
// the stage's layers and seeks from them before it reads any (docs/DISTRIBUTED.md,
// "Sections"). Not thread-safe.
#ifndef DISTWRITER_DIST_PLUMBING_H_
#define DISTWRITER_DIST_PLUMBING_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distwriter/exchange.h"
#include "distwriter/partition.h"
#include "webdb/db/stage_sorters.h"
#include "webdb/db/update.h"

namespace distwriter {

class DistPlumbing final : public webdb::StagePlumbing {
 public:
  // url_breakpoints: the committed ones (none yet: chosen in stage 0, set_partition).
  DistPlumbing(nutchfs::Env& local, std::string work_dir, size_t memory_budget,
               Exchange& exchange, int self, int k,
               const std::vector<std::string>& url_breakpoints);

  // REQUIRES: set before the first Incoming() (the url split may be chosen late).
  void set_partition(Partition p);

  webdb::EditSink& Sink(int stage, size_t producer) override {
    return sorters_.Sink(stage, producer);
  }
  Status EndStage(int stage) override;
  // REQUIRES: partition 0.
  Result<std::unique_ptr<webdb::EditIterator>> Incoming(int stage, size_t partition) override;
  Result<std::unique_ptr<webdb::EditIterator>> IncomingAgain(int stage,
                                                             size_t partition) override;
  // The edits meant for this writer's section in `stage`: known before they are read with
  // k = 1 (the sorters count them), else once Incoming(stage, 0) opened the k files (the
  // sum of what their footers claim, which each file is checked against as it is read to
  // its end; AddCounts, so a peer's huge claim cannot wrap the sum).
  std::optional<uint64_t> Count(int stage) const override;

 private:
  void KeepOwnApart(int stage, const Partition& p);
  Status SendSections(int stage, webdb::EditIterator& sorted, int first, int last);
  Result<std::unique_ptr<webdb::EditIterator>> ReceiveAll(int stage, bool again);

  nutchfs::Env& local_;
  const std::string work_dir_;
  Exchange& exchange_;
  const int self_;
  const int k_;
  const size_t read_buffer_;
  std::optional<Partition> partition_;
  // This writer's own section file of each stage, while it is still to be read.
  std::array<std::string, webdb::kNumStages> own_sections_;
  // The partition of each stage's sorters that holds the own section, once kept apart.
  std::array<std::optional<size_t>, webdb::kNumStages> own_partition_;
  // The edits of each stage whose k files are open (Count).
  std::array<std::optional<uint64_t>, webdb::kNumStages> counts_;
  webdb::StageSorters sorters_;
};

}  // namespace distwriter

#endif  // DISTWRITER_DIST_PLUMBING_H_
