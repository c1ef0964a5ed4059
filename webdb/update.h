// The update engine: runs the five merge stages over one db directory (a whole
// single-machine db, or one writer's section of a distributed db) and returns the
// manifest of the new version, without installing it.
//
// Where edits go between stages is the driver's business, behind StagePlumbing: the
// single-machine writer sorts them locally; the distributed writer routes them to the
// writers owning their keys and merges what arrives. Stage s's edits are complete once
// stage s-1 has finished (every stage emits only to later stages), so the engine asks
// for them exactly then. Not thread-safe.
#ifndef WEBDB_UPDATE_H_
#define WEBDB_UPDATE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "nutchfs/env.h"
#include "webdb/iterator.h"
#include "webdb/manifest.h"
#include "webdb/writer.h"

namespace webdb {

// Stages are numbered 1..5: pagesByURL, pagesByMD5, linksByMD5, linksByURL, and the
// second linksByMD5 pass. kNumStages is also the number of edit streams. Stage 3's
// edits are read twice: by stage 3 and again by stage 5, which writes linksByMD5.
constexpr int kNumStages = 5;
const char* StageName(int stage);  // "stage 1 pagesByURL", ...

class StagePlumbing {
 public:
  virtual ~StagePlumbing() = default;
  // Where edits meant for `stage` go, whoever produces them (the call log feeds 1 and 3).
  virtual EditSink& Sink(int stage) = 0;
  // Ends the production of edits for `stage` and returns all of them meant for this
  // directory's key range, sorted. Called once per stage, for stages 1..5 in order.
  virtual Result<std::unique_ptr<EditIterator>> Incoming(int stage) = 0;
  // Stage 3's edits once more, for stage 5 (so they are kept until then).
  // REQUIRES: Incoming(5) was called; the iterator Incoming(3) returned is destroyed.
  virtual Result<std::unique_ptr<EditIterator>> IncomingStage3Again() = 0;
};

struct UpdateParams {
  std::string dir;            // holds the old tables; receives the new ones
  uint64_t new_version = 0;   // names the new table files
  uint64_t url_section = 0;   // this directory's url range (numbers inserted links)
  const WriterOptions* options = nullptr;
};

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

#endif  // WEBDB_UPDATE_H_
