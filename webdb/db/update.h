// The update engine: runs the five merge stages over one db directory (a whole
// single-machine db, or one writer's section of a distributed db) and returns the
// manifest of the new version, without installing it.
//
// Where edits go between stages is the driver's business, behind StagePlumbing: the
// single-machine writer sorts them locally; the distributed writer routes them to the
// writers owning their keys and merges what arrives. Stage s's edits are complete once
// stage s-1 has finished (every stage emits only to later stages), so the engine asks
// for them exactly then.
//
// Partitions (docs/DESIGN.md): where the plumbing keeps a stage's edits apart by key
// range and the stage is large, the stage merges each range on a worker of its own, at
// once (WriterOptions::threads) or one after the other, each writing one part of the
// new table (webdb/table/table.h). The ranges depend only on the tables and the edits, so the
// files are the same either way. RunUpdate is not thread-safe; it starts and joins the
// workers itself.
#ifndef WEBDB_DB_UPDATE_H_
#define WEBDB_DB_UPDATE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/db/manifest.h"
#include "webdb/db/options.h"
#include "webdb/stages/stage_table.h"
#include "webdb/table/iterator.h"

namespace webdb {

// The stages are described by webdb/stages/stage_table.h. Stage 3's edits are read
// twice: by stage 3 and again by stage 5, which writes linksByMD5.
// The most key ranges the single-machine writer merges a stage in: one a core of the
// machines it is built for. A constant, not the machine's count, so that a db's files do
// not depend on the machine that wrote them.
constexpr size_t kMaxPartitions = 2;

class StagePlumbing {
 public:
  virtual ~StagePlumbing() = default;
  // How many key ranges this plumbing can keep a stage's edits apart in. The
  // distributed writer's plumbing has one (its writers are its ranges).
  virtual size_t max_partitions() const { return 1; }
  // Keeps the edits meant for `stage` apart at these increasing keys from now on:
  // partition p holds the keys k with splits[p-1] <= k < splits[p]. REQUIRES:
  // splits.size() < max_partitions(); no edit for stage added yet.
  virtual void SplitEdits(int stage, std::vector<std::string> splits) {}
  // The keys stage's edits are kept apart at; none: one partition.
  virtual const std::vector<std::string>& splits(int stage) const;
  // Where `producer` hands the edits meant for `stage`: the call log (stages 1 and 3) is
  // producer 0, the worker of partition w of a stage is producer w. Each producer's sink
  // is used by one thread at a time.
  virtual EditSink& Sink(int stage, size_t producer) = 0;
  // The number of edits meant for `stage`, once the plumbing knows it: before they are
  // read (the local one's sorters count them), or once Incoming(stage, 0) has opened them
  // (the distributed one's, from the footers of the files that hold them); nullopt until
  // then. A count may be claimed by a peer: it decides only how the stage writes and reads
  // (RunUpdate plans from it), never what the tables hold. REQUIRES: the stages before it
  // ended.
  virtual std::optional<uint64_t> Count(int stage) const { return std::nullopt; }
  // Ends the production of edits for `stage`. Called once per stage, for stages 1..5 in
  // order, with the iterators of the stage before destroyed.
  virtual Status EndStage(int stage) { return Status::OK(); }
  // Partition p of the edits meant for this directory's key range, sorted. Called once
  // per partition after EndStage(stage); a stage's partitions may be read on threads of
  // their own at once.
  virtual Result<std::unique_ptr<EditIterator>> Incoming(int stage, size_t partition) = 0;
  // Partition p of stage's edits once more, for the stage that completes it (so they are
  // kept until then). REQUIRES: ReadAgain(stage); EndStage was called for the stage
  // that reads them again.
  virtual Result<std::unique_ptr<EditIterator>> IncomingAgain(int stage, size_t partition) = 0;
};

struct UpdateParams {
  std::string dir;            // holds the old tables; receives the new ones
  uint64_t new_version = 0;   // names the new table files
  uint64_t url_section = 0;   // this directory's url range (numbers inserted links)
  const WriterOptions* options = nullptr;
  // The keep setting the new version is published with, when the driver publishes it as
  // a version of dir (webdb/db/versions.h): then a table it shares with the old version
  // is reread only if a version it stops keeping does not name it (CheckCarriedTables).
  // nullopt: every shared table is reread.
  std::optional<uint32_t> keep;
};

// Keeps the edits of stages 1, 2, 3 and 5 apart by key range, as RunUpdate merges
// them: stage 1's at the middle of the old pagesByURL (if it has two blocks or more),
// the md5 stages' at the middle of the md5 space. Stage 4's ranges come from the new
// pagesByURL, which RunUpdate splits them by. Does nothing for a plumbing of one
// partition. REQUIRES: before the first edit is added.
Status SplitStageEdits(nutchfs::Env& env, const std::string& dir, const Manifest& old,
                       StagePlumbing& plumbing);

// The part of memory_budget that the sorters of an update of `old` (in dir) may take:
// the budget less the indexes of the tables the update holds open at once (both link
// tables throughout, and one page table in stages 3 to 5, reckoned at the larger of the
// old ones), so that sorters and indexes together stay within the budget. Never less
// than a quarter of the budget. Reads the tables' footers (checked as OpenTableOf does).
Result<size_t> SorterBudget(nutchfs::Env& env, const std::string& dir, const Manifest& old,
                            size_t memory_budget);

// Runs stages 1..5. The returned manifest shares the files of tables that no stage
// had to change. On error, new files may be left behind; the old version is intact.
Result<Manifest> RunUpdate(nutchfs::Env& env, const Manifest& old, const UpdateParams& params,
                           StagePlumbing& plumbing);

}  // namespace webdb

#endif  // WEBDB_DB_UPDATE_H_
