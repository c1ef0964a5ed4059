// PlanLayers: how a stage writes its table (docs/DESIGN.md, "Writing a round"): merged
// into a new base, or as a new run over the base that absorbs some of the newest runs.
// Decided from counts alone (the manifest's and the stage's changes), never from memory,
// threads or timing, so that a db's files are the same whatever those are. Pure
// functions; safe from any thread.
#ifndef WEBDB_DB_LAYER_PLAN_H_
#define WEBDB_DB_LAYER_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace webdb {

// The most runs a table has over its base.
constexpr size_t kMaxRuns = 6;

// How the stages write their tables: as PlanLayers decides from the counts, or always
// merged into the base, or always as a run (as tests force it, to compare both ways). The
// tables hold the same rows whichever it is; only their layering differs.
enum class LayerPolicy : uint8_t { kPlan, kMerge, kRun };

// How a stage that writes a run or no table reads its old rows: as PlanSeeks decides from
// the counts, or always by a walk, or always by seeks (as tests force it, to compare both
// ways). The tables hold the same rows, and the runs the same bytes, whichever it is.
enum class SeekPolicy : uint8_t { kPlan, kWalk, kSeek };

// What a stage knows when it starts.
struct LayerCounts {
  uint64_t base_rows = 0;
  std::vector<uint64_t> run_rows;  // rows stored in each run (tombstones included), oldest first
  uint64_t changes = 0;            // the stage's edits and the notices it reads
};

struct LayerPlan {
  bool merge = true;    // a new base holding every row; false: a new run
  size_t absorbed = 0;  // for a run: how many of the newest runs it absorbs
  // Whether the stage moves its old rows by seeks (webdb/stages/stages.h): only for a run
  // or a stage that writes no table.
  bool seek = false;
  bool operator==(const LayerPlan&) const = default;
};

// a + b, or the largest count if that does not fit: counts a peer claims (the footer of an
// edit file it sent, distwriter) may be anything, and a sum that wrapped around would plan
// a huge round as a small one.
uint64_t AddCounts(uint64_t a, uint64_t b);

// Merge into the base when the runs and the changes exceed a quarter of the base (always
// over an empty base); otherwise a run absorbing the newest runs while each is at most the
// changes accumulated so far (the changes, plus the rows absorbed), and further while the
// table would otherwise hold more than kMaxRuns runs.
LayerPlan PlanLayers(const LayerCounts& counts);
// A run whatever the counts (as the tests force it), absorbing as PlanLayers would.
LayerPlan PlanRun(const LayerCounts& counts);
// Whether a stage with these counts seeks rather than walks: when its changes, each a seek
// (of every layer: a binary search of the index summaries, one block read and decoded up to
// the target, then the rows read there), cost less than a step (one row decoded, compared
// and handed on) for each row of its table, base and runs: changes × kSeekCostInSteps <
// rows, the constant measured (docs/DESIGN.md, "Seeks").
bool PlanSeeks(const LayerCounts& counts);

}  // namespace webdb

#endif  // WEBDB_DB_LAYER_PLAN_H_
