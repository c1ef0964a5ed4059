// StageSorters: the five edit streams of a session, each sorted, sharing one memory pool
// (a lone sorter may use all of it), earlier sorters freed and later ones spilled as the
// stages go on.
#include "webdb/stage_sorters.h"

#include <catch2/catch.hpp>
#include <random>

#include "test/util/edit_util.h"
#include "test/util/temp_dir.h"
#include "webdb/sort_buffer.h"

namespace webdb {
namespace {

using testutil::OwnedEdit;

// Random edits whose records take at least `bytes` of sort buffer.
std::vector<OwnedEdit> EditsOfSize(std::mt19937_64& rng, size_t bytes) {
  std::vector<OwnedEdit> edits;
  size_t total = 0;
  testutil::EditGenOptions o;
  o.distinct_keys = 100000;
  o.max_value = 200;
  while (total < bytes) {
    for (OwnedEdit& e : testutil::RandomEdits(rng, 1000, o)) {
      total += SortBuffer::RecordSize(e.view());
      edits.push_back(std::move(e));
    }
  }
  return edits;
}

size_t RunsOf(nutchfs::Env& env, const std::string& dir, const std::string& stage) {
  auto names = env.GetChildren(dir);
  size_t n = 0;
  if (names) {
    for (const std::string& name : *names) n += name.starts_with(stage + "-run-");
  }
  return n;
}

void Expect(StageSorters& sorters, int stage, const std::vector<OwnedEdit>& added) {
  CAPTURE(stage);
  auto it = sorters.Finish(stage);
  REQUIRE(it);
  testutil::Drained got = testutil::Drain(**it);
  REQUIRE(got.status.ok());
  CHECK(got.edits == testutil::StableSorted(added));
}

TEST_CASE("stage sorters return each stage's edits sorted, stage by stage") {
  const bool sort_thread = GENERATE(false, true);
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(41);
  StageSorters sorters(*env, dir.File("work"), 64 << 10, sort_thread);  // every stage spills
  std::vector<std::vector<OwnedEdit>> added(kNumStages);
  for (const OwnedEdit& e : testutil::RandomEdits(rng, 20000)) {
    const int stage = static_cast<int>(rng() % kNumStages) + 1;
    REQUIRE(sorters.Sink(stage).Add(e.view()).ok());
    added[stage - 1].push_back(e);
  }
  for (int s = 1; s <= kNumStages; ++s) CHECK(sorters.count(s) == added[s - 1].size());
  for (int s = 1; s <= kNumStages; ++s) Expect(sorters, s, added[s - 1]);
  // Stage 5 reads stage 3's edits again.
  auto again = sorters.Stage3Again();
  REQUIRE(again);
  testutil::Drained got = testutil::Drain(**again);
  REQUIRE(got.status.ok());
  CHECK(got.edits == testutil::StableSorted(added[2]));
}

TEST_CASE("a lone stage sorter may use the whole pool, later stages that spill give it back") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string work = dir.File("work");
  std::mt19937_64 rng(42);
  StageSorters sorters(*env, work, 4 << 20, /*sort_thread=*/false);
  // Stage 1 alone holds 2.5 MiB, far more than a fifth of the budget: no run.
  const std::vector<OwnedEdit> first = EditsOfSize(rng, 5 << 19);
  for (const OwnedEdit& e : first) REQUIRE(sorters.Sink(1).Add(e.view()).ok());
  CHECK(RunsOf(*env, work, "stage1") == 0);
  // Stage 3 gets what is left and spills.
  const std::vector<OwnedEdit> third = EditsOfSize(rng, 4 << 20);
  for (const OwnedEdit& e : third) REQUIRE(sorters.Sink(3).Add(e.view()).ok());
  const size_t spilled = RunsOf(*env, work, "stage3");
  CHECK(spilled >= 1);
  // Reading stage 1 spills what stage 3 holds, for the sorters stage 1 feeds.
  Expect(sorters, 1, first);
  CHECK(RunsOf(*env, work, "stage3") == spilled + 1);
  Expect(sorters, 2, {});
  Expect(sorters, 3, third);
}

}  // namespace
}  // namespace webdb
