// StageSorters: the five edit streams of a session, each sorted, sharing one memory pool
// (a lone sorter may use all of it), earlier sorters freed and later ones spilled as the
// stages go on.
#include "webdb/db/stage_sorters.h"

#include <catch2/catch.hpp>
#include <random>
#include <thread>

#include "test/util/edit_util.h"
#include "test/util/temp_dir.h"
#include "webdb/sort/sort_buffer.h"

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
    for (const std::string& name : *names) {
      n += name.starts_with(stage + ".") && name.find("-run-") != std::string::npos;
    }
  }
  return n;
}

void Expect(StageSorters& sorters, int stage, const std::vector<OwnedEdit>& added) {
  CAPTURE(stage);
  REQUIRE(sorters.EndStage(stage).ok());
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
  auto again = sorters.Again(3);
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

TEST_CASE("edits kept apart by key range: a partition's stream merges its producers'") {
  const bool threads = GENERATE(false, true);
  const size_t budget = GENERATE(size_t{64} << 10, size_t{64} << 20);  // spilling or not
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  StageSorters sorters(*env, dir.File("work"), budget, threads, /*max_partitions=*/2);
  const std::string split("\x05", 1);
  for (int stage = 1; stage <= kNumStages; ++stage) sorters.Split(stage, {split});
  CHECK(sorters.splits(2) == std::vector<std::string>{split});
  // Each producer adds its own edits: the same keys, but orders of its own.
  std::vector<std::vector<std::vector<OwnedEdit>>> added(2);
  for (size_t w = 0; w < 2; ++w) {
    std::mt19937_64 rng(50 + w);
    added[w].resize(kNumStages);
    for (OwnedEdit& e : testutil::RandomEdits(rng, 6000)) {
      e.order |= uint64_t{w} << 40;
      added[w][rng() % kNumStages].push_back(std::move(e));
    }
  }
  auto produce = [&](size_t w) {
    for (int stage = 1; stage <= kNumStages; ++stage) {
      for (const OwnedEdit& e : added[w][stage - 1]) {
        REQUIRE(sorters.Sink(stage, w).Add(e.view()).ok());
      }
    }
  };
  if (threads) {
    std::thread other(produce, 1);
    produce(0);
    other.join();
  } else {
    produce(0);
    produce(1);
  }
  // What partition p of a stage must hold: both producers' edits of its range, sorted.
  auto expected = [&](int stage, size_t p) {
    std::vector<OwnedEdit> part;
    for (size_t w = 0; w < 2; ++w) {
      for (const OwnedEdit& e : added[w][stage - 1]) {
        if ((e.key >= split) == (p == 1)) part.push_back(e);
      }
    }
    return testutil::StableSorted(part);
  };
  for (int stage = 1; stage <= kNumStages; ++stage) {
    CAPTURE(stage);
    CHECK(sorters.count(stage) == added[0][stage - 1].size() + added[1][stage - 1].size());
    REQUIRE(sorters.EndStage(stage).ok());
    for (size_t p = 0; p < 2; ++p) {
      auto it = sorters.Finish(stage, p);
      REQUIRE(it);
      testutil::Drained got = testutil::Drain(**it);
      REQUIRE(got.status.ok());
      CHECK(got.edits == expected(stage, p));
    }
  }
  for (size_t p = 0; p < 2; ++p) {
    auto again = sorters.Again(3, p);
    REQUIRE(again);
    testutil::Drained got = testutil::Drain(**again);
    REQUIRE(got.status.ok());
    CHECK(got.edits == expected(3, p));
  }
}

}  // namespace
}  // namespace webdb
