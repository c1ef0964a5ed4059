// The five merge stages described as data, for the drivers that run them.
//
// A driver (webdb/db/update.h) needs to know of each stage what it merges, what it
// writes, which new table of an earlier stage it joins against, which notices it
// reports or reads, and where the edits it emits go; the stage functions
// (webdb/stages/stages.h) know none of it. kStages says it once, and each entry's apply
// adapts one worker's inputs and outputs (StageIo) to its stage function, so a driver
// runs every stage by the same loop. Plain constant data; safe from any thread.
#ifndef WEBDB_STAGES_STAGE_TABLE_H_
#define WEBDB_STAGES_STAGE_TABLE_H_

#include <array>
#include <cstdint>
#include <optional>

#include "webdb/stages/join_changes.h"
#include "webdb/stages/stages.h"
#include "webdb/table/iterator.h"
#include "webdb/table/record.h"

namespace webdb {

// Stages are numbered 1..5: pagesByURL, pagesByMD5, linksByMD5, linksByURL, and the
// second linksByMD5 pass. kNumStages is also the number of edit streams.
constexpr int kNumStages = 5;

// The notices of a page stage, which tell a link stage which of its rows without edits
// its join can change (webdb/stages/join_changes.h).
enum class Notices : uint8_t {
  kNone,
  kTargetsChanged,  // urls whose page came, went or flipped its numOutlinks > 0 status
  kMd5sGone,        // md5s left with no page
};

// One worker's inputs and outputs for its key range of a stage. Members a stage's entry
// does not use are null.
struct StageIo {
  Iterator* old_rows = nullptr;
  EditIterator* edits = nullptr;
  Iterator* joined = nullptr;     // the new table of StageSpec::joins, from the range on
  JoinChanges* changes = nullptr;  // StageSpec::reads' notices; null: every row is checked
  RowSink* table = nullptr;        // the new table, for a stage that writes one
  NoticeSink* notices = nullptr;   // where StageSpec::reports' notices go; null: nowhere
  // Where the edits for StageSpec::emits_to[i] go.
  std::array<EditSink*, 2> emit{};
  uint64_t url_section = 0;  // stage 1: numbers the links of inserted pages
  // Move the old rows and the joined table by seeks (webdb/stages/stages.h): only where
  // table is null or takes rows kept unread (a run's sink).
  bool seek = false;
};

struct StageSpec {
  const char* name;  // "stage 1 pagesByURL", ...
  TableId table;     // the old table it merges
  // Stage 3 writes no table: stage 5 recomputes its rows and writes them with their fixes.
  bool writes_table;
  std::optional<TableId> joins;  // the new table of an earlier stage read alongside
  Notices reports;
  // The notices that name its rows a join can change. A stage with no edits runs only
  // when some were reported, or when the stage it completes ran.
  Notices reads;
  // 0, or the earlier stage whose result this one writes (stage 5 completes stage 3):
  // it runs whenever that one did, and reads that stage's edits again before its own.
  int completes;
  // Its edits are kept apart by the ranges of the new table it joins against, known once
  // the stage that writes that table has run (stage 4's, by the new pagesByURL).
  bool split_by_joined;
  // The later stages it emits edits for (0: none).
  std::array<int, 2> emits_to;
  Result<StageStats> (*apply)(const StageIo& io);
};

// REQUIRES: 1 <= stage <= kNumStages.
const StageSpec& Stage(int stage);
// Whether a later stage reads stage's edits again (stage 3's, read by stage 5, which
// completes it): a driver keeps them until then.
bool ReadAgain(int stage);
// Stage(stage).name, or "stage ?" out of range.
const char* StageName(int stage);
// The join key of the rows a kind of notices names: a url for linksByURL rows, an md5 for
// linksByMD5 rows. REQUIRES: n != Notices::kNone.
JoinKeyFn JoinKeyOf(Notices n);

}  // namespace webdb

#endif  // WEBDB_STAGES_STAGE_TABLE_H_
