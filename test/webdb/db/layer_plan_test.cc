// webdb::PlanLayers (docs/DESIGN.md, "Writing a round"): the rule (merge into the base when
// runs and changes exceed a quarter of it) and the policy (which newest runs a run absorbs,
// the cap of kMaxRuns), and PlanSeeks (seek while the changes are fewer than an eighth of
// the table's rows, base and runs).
#include "webdb/db/layer_plan.h"

#include <catch2/catch.hpp>
#include <limits>

namespace webdb {
namespace {

TEST_CASE("PlanLayers merges into the base past a quarter of it", "[layered]") {
  CHECK(PlanLayers({0, {}, 1}) == LayerPlan{true, 0});        // a load
  CHECK(PlanLayers({1000, {}, 250}) == LayerPlan{false, 0});  // exactly a quarter: a run
  CHECK(PlanLayers({1000, {}, 251}) == LayerPlan{true, 0});
  CHECK(PlanLayers({1000, {100, 100}, 50}) == LayerPlan{false, 0});
  CHECK(PlanLayers({1000, {100, 100}, 51}) == LayerPlan{true, 0});  // S + E > B / 4
}

TEST_CASE("PlanLayers absorbs the newest runs no larger than the changes so far", "[layered]") {
  // 10 changes absorb the newest run of 10, then 20 absorb the one of 15; 35 < 40 stops.
  CHECK(PlanLayers({100000, {40, 15, 10}, 10}) == LayerPlan{false, 2});
  CHECK(PlanLayers({100000, {40, 15, 11}, 10}) == LayerPlan{false, 0});
  CHECK(PlanLayers({100000, {1, 2, 3}, 10}) == LayerPlan{false, 3});
}

TEST_CASE("PlanLayers never leaves more than kMaxRuns runs", "[layered]") {
  // Six runs much larger than the changes: the newest is absorbed only for the cap, and
  // the next one is larger than the rows absorbed so far.
  const std::vector<uint64_t> six = {6000, 5000, 4000, 3000, 2000, 1000};
  CHECK(PlanLayers({1000000, six, 1}) == LayerPlan{false, 1});
  // Once the cap made it absorb one, the rows so far may absorb more.
  CHECK(PlanLayers({1000000, std::vector<uint64_t>(kMaxRuns, 1000), 1}) ==
        LayerPlan{false, kMaxRuns});
  std::vector<uint64_t> runs;
  for (int round = 0; round < 50; ++round) {
    const LayerCounts counts{1000000, runs, 7};
    const LayerPlan plan = PlanLayers(counts);
    REQUIRE_FALSE(plan.merge);
    uint64_t rows = counts.changes;
    for (size_t i = 0; i < plan.absorbed; ++i) {
      rows += runs.back();
      runs.pop_back();
    }
    runs.push_back(rows);
    REQUIRE(runs.size() <= kMaxRuns);
  }
}

TEST_CASE("PlanRun writes a run whatever the counts, under the cap", "[layered]") {
  CHECK(PlanRun({0, {}, 100}) == LayerPlan{false, 0});
  CHECK(PlanRun({10, {6000, 5000, 4000, 3000, 2000, 1000}, 100}) == LayerPlan{false, 1});
}

TEST_CASE("PlanSeeks seeks while the changes are under an eighth of the rows", "[layered]") {
  CHECK(PlanSeeks({8000, {}, 999}));
  CHECK_FALSE(PlanSeeks({8000, {}, 1000}));
  CHECK(PlanSeeks({7000, {500, 500}, 999}));  // the runs' rows count: 8000 in all
  CHECK_FALSE(PlanSeeks({7000, {500, 500}, 1000}));
  CHECK_FALSE(PlanSeeks({0, {}, 0}));  // nothing to seek in
  CHECK_FALSE(PlanSeeks({7, {}, 0}));
}

TEST_CASE("counts a peer claims never wrap around into a small round", "[layered]") {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  CHECK(AddCounts(2, 3) == 5);
  CHECK(AddCounts(kMax - 1, 1) == kMax);
  CHECK(AddCounts(kMax, kMax) == kMax);
  // A huge claimed count merges into the base and walks, however many rows the runs hold.
  CHECK(PlanLayers({1000000, {10}, kMax}) == LayerPlan{});
  CHECK(PlanLayers({1000000, {kMax}, 1}) == LayerPlan{});
  CHECK_FALSE(PlanSeeks({1000000, {}, kMax}));
  // Forced into a run, it absorbs what the cap and the counts allow, without wrapping.
  CHECK(PlanRun({1000000, {kMax, 1}, kMax}) == LayerPlan{false, 2});
}

}  // namespace
}  // namespace webdb
