#include "webdb/db/layer_plan.h"

#include <limits>
#include <numeric>

namespace webdb {
namespace {

// What a seek costs in steps of a walk (PlanSeeks), measured (docs/DESIGN.md, "Seeks").
constexpr uint64_t kSeekCostInSteps = 8;

}  // namespace

uint64_t AddCounts(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

LayerPlan PlanLayers(const LayerCounts& counts) {
  const uint64_t runs =
      std::accumulate(counts.run_rows.begin(), counts.run_rows.end(), uint64_t{0});
  if (counts.base_rows == 0 || AddCounts(runs, counts.changes) > counts.base_rows / 4) {
    return LayerPlan{};
  }
  return PlanRun(counts);
}

LayerPlan PlanRun(const LayerCounts& counts) {
  const size_t n = counts.run_rows.size();
  LayerPlan plan{false, 0, false};
  uint64_t acc = counts.changes;
  while (plan.absorbed < n) {
    const uint64_t newest = counts.run_rows[n - 1 - plan.absorbed];
    // The runs left below, and the new one, must fit under the cap.
    const bool over_cap = n - plan.absorbed + 1 > kMaxRuns;
    if (newest > acc && !over_cap) break;
    acc = AddCounts(acc, newest);
    ++plan.absorbed;
  }
  return plan;
}

bool PlanSeeks(const LayerCounts& counts) {
  const uint64_t rows = std::accumulate(counts.run_rows.begin(), counts.run_rows.end(),
                                        counts.base_rows);
  return counts.changes < rows / kSeekCostInSteps;
}

}  // namespace webdb
