#include "webdb/sort/sorter.h"

#include <catch2/catch.hpp>
#include <random>

#include "nutchfs/env.h"
#include "nutchfs/fault_env.h"
#include "nutchfs/mem_env.h"
#include "test/util/corrupt.h"
#include "test/util/edit_util.h"
#include "test/util/temp_dir.h"
#include "webdb/sort/sort_memory.h"

namespace webdb {
namespace {

using testutil::Drain;
using testutil::OwnedEdit;

size_t FilesIn(nutchfs::Env& env, const std::string& dir) {
  auto children = env.GetChildren(dir);
  return children ? children->size() : 0;
}

void AddAll(Sorter& sorter, const std::vector<OwnedEdit>& edits) {
  for (const OwnedEdit& e : edits) REQUIRE(sorter.Add(e.view()).ok());
  REQUIRE(sorter.count() == edits.size());
}

TEST_CASE("sorter without a spill sorts in memory", "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(21);
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 5000);
  auto sorter = Sorter::Create(*env, dir.File("tmp"), 8 << 20, "pages");
  AddAll(*sorter, edits);
  auto it = sorter->Finish();
  REQUIRE(it);
  testutil::Drained got = Drain(**it);
  CHECK(got.status.ok());
  CHECK(got.edits == testutil::StableSorted(edits));
  CHECK(sorter->runs_spilled() == 0);
  CHECK_FALSE(env->FileExists(dir.File("tmp")));
}

TEST_CASE("sorter with a budget far above memory allocates only what it uses", "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(22);
  // 10 TiB: allocating it up front throws std::bad_alloc on any machine.
  for (size_t budget : {size_t{100} << 30, size_t{1} << 40, size_t{10} << 40}) {
    std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 20000);
    auto sorter = Sorter::Create(*env, dir.File("tmp"), budget, "pages");
    AddAll(*sorter, edits);
    auto it = sorter->Finish();
    REQUIRE(it);
    testutil::Drained got = Drain(**it);
    CHECK(got.status.ok());
    CHECK(got.edits == testutil::StableSorted(edits));
    CHECK(sorter->runs_spilled() == 0);
  }
}

TEST_CASE("sorter with tiny budgets spills, merges in passes, stays stable", "[sorter][random]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const size_t budget = GENERATE(size_t{4} << 10, size_t{64} << 10, size_t{512} << 10);
  const uint64_t seed = GENERATE(1, 2);
  INFO("budget " << budget << " seed " << seed);
  std::mt19937_64 rng(seed);
  const size_t n = budget < (64 << 10) ? 8000 : 80000;
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, n, {2000, 20, 40});
  const std::string tmp = dir.File("tmp");
  {
    auto sorter = Sorter::Create(*env, tmp, budget, "links");
    AddAll(*sorter, edits);
    auto it = sorter->Finish();
    REQUIRE(it);
    CHECK(sorter->runs_spilled() > sorter->fan_in());
    CHECK(sorter->merge_passes() >= 1);
    CHECK(FilesIn(*env, tmp) <= sorter->fan_in());  // merged-away runs are gone
    testutil::Drained got = Drain(**it);
    CHECK(got.status.ok());
    REQUIRE(got.edits.size() == edits.size());
    CHECK(got.edits == testutil::StableSorted(edits));
  }
  CHECK(FilesIn(*env, tmp) == 0);
}

// Keys that share long prefixes and differ (or end) at every position of the 7-byte
// chunks the in-memory sort compares, padded with '\0' and '\xff' to catch padding bugs.
std::vector<OwnedEdit> PrefixHeavyEdits(std::mt19937_64& rng, size_t n) {
  const std::string kAlphabet("\0a\xff", 3);
  const std::vector<std::string> bases = {"http://www.example.com/", std::string(200, 'p'), ""};
  std::vector<OwnedEdit> edits;
  for (size_t i = 0; i < n; ++i) {
    std::string key = bases[i % 7 == 0 ? 1 + i % 2 : 0];
    size_t extra = rng() % 40;
    for (size_t j = 0; j < extra; ++j) key.push_back(kAlphabet[rng() % (j < 20 ? 1 : 3)]);
    edits.push_back({key, rng() % 3, 0, std::to_string(i)});
  }
  return edits;
}

TEST_CASE("sorter orders keys with long shared prefixes", "[sorter][random]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const size_t budget = GENERATE(size_t{64} << 10, size_t{64} << 20);
  const bool one_base = GENERATE(false, true);  // every key starts "http://www.example.com/"
  INFO("budget " << budget << " one base " << one_base);
  std::mt19937_64 rng(31);
  std::vector<OwnedEdit> edits = PrefixHeavyEdits(rng, 20000);
  if (one_base) {
    for (OwnedEdit& e : edits) e.key = "http://www.example.com/" + e.key;
  }
  auto sorter = Sorter::Create(*env, dir.File("tmp"), budget, "prefixes");
  AddAll(*sorter, edits);
  auto it = sorter->Finish();
  REQUIRE(it);
  testutil::Drained got = Drain(**it);
  CHECK(got.status.ok());
  CHECK(got.edits == testutil::StableSorted(edits));
}

TEST_CASE("sorter fan-in follows the budget", "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  // Each run merged keeps at least 128 KiB of a quarter of the budget.
  CHECK(Sorter::Create(*env, dir.path(), 4 << 10, "a")->fan_in() == 2);
  CHECK(Sorter::Create(*env, dir.path(), 2 << 20, "a")->fan_in() == 4);
  CHECK(Sorter::Create(*env, dir.path(), 32 << 20, "a")->fan_in() == 64);
  CHECK(Sorter::Create(*env, dir.path(), 256 << 20, "a")->fan_in() == Sorter::kMaxFanIn);
  CHECK(Sorter::Create(*env, dir.path(), size_t{1} << 30, "a")->fan_in() == Sorter::kMaxFanIn);
}

TEST_CASE("a merge reads through a quarter of the pool, and the sorter filling meanwhile keeps the rest",
          "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(9);
  std::vector<OwnedEdit> many = testutil::RandomEdits(rng, 240000);  // ~20 MB packed
  std::vector<OwnedEdit> few(many.begin(), many.begin() + 50000);  // ~4 MB
  const size_t budget = size_t{8} << 20;
  SortMemory memory(budget);
  auto read = Sorter::Create(*env, dir.File("tmp"), memory, "read");
  auto fill = Sorter::Create(*env, dir.File("tmp"), memory, "fill");
  AddAll(*read, many);
  REQUIRE(read->runs_spilled() >= 2);
  auto it = read->Finish();
  REQUIRE(it);
  const size_t reading = memory.taken();  // the read buffers alone
  CHECK(reading <= budget / 4);
  AddAll(*fill, few);
  CHECK(fill->runs_spilled() == 0);  // the rest of the pool holds them
  CHECK(Drain(**it).edits.size() == many.size());
  // Done, the read buffers go back to the pool, their mapping kept for the next buffers.
  it->reset();
  read.reset();
  CHECK(memory.kept() == reading);
  CHECK(memory.taken() + memory.kept() <= budget);
}

// A stage's sorters (one per producer and key range) are read at the same time: together
// they read through the quarter one sorter alone would, and the sorters filling meanwhile
// keep the rest (webdb/db/stage_sorters.h).
TEST_CASE("sorters read at the same time share the quarter of the pool", "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(12);
  const size_t budget = size_t{8} << 20;
  constexpr size_t kSharers = 4;
  SortMemory memory(budget);
  std::vector<std::unique_ptr<Sorter>> read;
  std::vector<std::vector<OwnedEdit>> edits;
  for (size_t i = 0; i < kSharers; ++i) {
    read.push_back(Sorter::Create(*env, dir.File("tmp"), memory, "read" + std::to_string(i),
                                  false, kSharers));
    CHECK(read.back()->fan_in() == budget / 4 / kSharers / (128 << 10));
    edits.push_back(testutil::RandomEdits(rng, 120000));  // ~10 MB packed: spills
    AddAll(*read.back(), edits.back());
    REQUIRE(read.back()->runs_spilled() >= 1);  // Finish spills the rest: two runs or more
  }
  std::vector<std::unique_ptr<EditIterator>> its;
  for (auto& sorter : read) {
    auto it = sorter->Finish();
    REQUIRE(it);
    its.push_back(std::move(*it));
  }
  CHECK(memory.taken() <= budget / 4);
  for (size_t i = 0; i < kSharers; ++i) {
    CHECK(Drain(*its[i]).edits == testutil::StableSorted(edits[i]));
  }
}

TEST_CASE("sorter gives its sorted stream again, from memory and from runs", "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(10);
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 5000);
  for (size_t budget : {size_t{64} << 10, size_t{64} << 20}) {
    INFO("budget " << budget);
    auto sorter = Sorter::Create(*env, dir.File("tmp"), budget, "again");
    CHECK_FALSE(sorter->Again());
    AddAll(*sorter, edits);
    {
      auto first = sorter->Finish();
      REQUIRE(first);
      CHECK(Drain(**first).edits == testutil::StableSorted(edits));
    }
    auto second = sorter->Again();
    REQUIRE(second);
    CHECK(Drain(**second).edits == testutil::StableSorted(edits));
    CHECK((sorter->runs_spilled() > 0) == (budget < (1 << 20)));
  }
}

TEST_CASE("a sorter sorting chunks on a thread gives the same stream as one without",
          "[sorter][random]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const size_t budget = GENERATE(size_t{256} << 10, size_t{2} << 20, size_t{64} << 20);
  INFO("budget " << budget);
  std::mt19937_64 rng(11);
  // Few keys and orders: many equal (key, order) pairs, which must keep insertion order.
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 60000, {300, 4, 30});
  std::vector<testutil::Drained> got;
  for (bool background : {false, true}) {
    SortMemory memory(budget);
    auto sorter = Sorter::Create(*env, dir.File("tmp"), memory, "bg", background);
    AddAll(*sorter, edits);
    {
      auto it = sorter->Finish();
      REQUIRE(it);
      got.push_back(Drain(**it));
    }
    auto again = sorter->Again();
    REQUIRE(again);
    CHECK(Drain(**again).edits == got.back().edits);
    CHECK((sorter->runs_spilled() > 0) == (budget < (8 << 20)));
  }
  CHECK(got[0].status.ok());
  CHECK(got[0].edits == testutil::StableSorted(edits));
  CHECK(got[1].edits == got[0].edits);
}

TEST_CASE("sorter keeps equal (key, order) edits in insertion order across runs", "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto sorter = Sorter::Create(*env, dir.File("tmp"), 4 << 10, "ties");
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    std::string value = std::to_string(i);
    REQUIRE(sorter->Add({i % 2 ? "same" : "alsosame", 42, 0, value}).ok());
  }
  auto it = sorter->Finish();
  REQUIRE(it);
  CHECK(sorter->merge_passes() > 1);
  testutil::Drained got = Drain(**it);
  REQUIRE(got.status.ok());
  REQUIRE(got.edits.size() == n);
  for (int i = 0; i < n; ++i) {
    int expected = i < n / 2 ? 2 * i : 2 * (i - n / 2) + 1;
    REQUIRE(got.edits[i].value == std::to_string(expected));
  }
}

TEST_CASE("sorter takes edits larger than its budget", "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::vector<OwnedEdit> edits;
  for (int i = 0; i < 20; ++i) {
    edits.push_back({std::string(65536, static_cast<char>('a' + i % 7)), uint64_t(i % 3),
                     static_cast<uint8_t>(i), std::string(i * 5000, '\0')});
    edits.push_back({std::string(1, '\xff'), 0, 0, std::to_string(i)});
  }
  auto sorter = Sorter::Create(*env, dir.File("tmp"), 4 << 10, "big");
  AddAll(*sorter, edits);
  auto it = sorter->Finish();
  REQUIRE(it);
  testutil::Drained got = Drain(**it);
  CHECK(got.status.ok());
  CHECK(got.edits == testutil::StableSorted(edits));
}

TEST_CASE("sorter: empty input, misuse", "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto sorter = Sorter::Create(*env, dir.File("tmp"), 4 << 10, "empty");
  auto it = sorter->Finish();
  REQUIRE(it);
  CHECK_FALSE((*it)->Valid());
  CHECK((*it)->status().ok());
  CHECK(sorter->Add({"a", 0, 0, ""}).IsInvalidArgument());
  CHECK(sorter->Finish().error().IsInvalidArgument());
}

TEST_CASE("sorter reports a damaged run as Corruption", "[sorter][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(5);
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 20000);
  const std::string tmp = dir.File("tmp");
  const size_t budget = GENERATE(size_t{64} << 10, size_t{512} << 10);
  INFO("budget " << budget);
  auto sorter = Sorter::Create(*env, tmp, budget, "bad");
  AddAll(*sorter, edits);
  auto runs = env->GetChildren(tmp);
  REQUIRE(runs);
  REQUIRE_FALSE(runs->empty());
  testutil::FlipByte(tmp + "/" + runs->front(), 100);
  auto it = sorter->Finish();
  Status s = it ? Drain(**it).status : it.error();
  CHECK(s.IsCorruption());
  CHECK(s.message().find(runs->front()) != std::string::npos);
}

TEST_CASE("sorter reports failing writes and reads", "[sorter][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  std::mt19937_64 rng(6);
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 20000);
  {
    REQUIRE(env->Inject({nutchfs::FaultOp::kAppend, 5, nutchfs::FaultKind::kError, 1, 0}).ok());
    auto sorter = Sorter::Create(*env, "/tmp", 64 << 10, "w");
    Status s;
    for (const OwnedEdit& e : edits) {
      s = sorter->Add(e.view());
      if (!s.ok()) break;
    }
    CHECK(s.IsIOError());
  }
  env->Clear();
  {
    auto sorter = Sorter::Create(*env, "/tmp", 64 << 10, "r");
    AddAll(*sorter, edits);
    REQUIRE(env->Inject({nutchfs::FaultOp::kRead, 40, nutchfs::FaultKind::kError, 1, 0}).ok());
    auto it = sorter->Finish();
    Status s = it ? Drain(**it).status : it.error();
    CHECK(s.IsIOError());
  }
  env->Clear();
  auto sorter = Sorter::Create(*env, "/tmp", 64 << 10, "ok");  // the in-memory Env works
  AddAll(*sorter, edits);
  auto it = sorter->Finish();
  REQUIRE(it);
  CHECK(Drain(**it).edits == testutil::StableSorted(edits));
}

TEST_CASE("sorters sharing a pool: a lone sorter uses it all, ReleaseMemory spills", "[sorter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937_64 rng(8);
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, 20000);  // ~1.7 MB packed
  SortMemory memory(size_t{1} << 20);
  auto big = Sorter::Create(*env, dir.File("tmp"), memory, "big");
  auto small = Sorter::Create(*env, dir.File("tmp"), memory, "small");
  AddAll(*big, edits);
  CHECK(big->runs_spilled() == 1);  // runs of the whole pool
  REQUIRE(big->ReleaseMemory().ok());
  CHECK(big->runs_spilled() == 2);
  CHECK(memory.taken() == 0);
  REQUIRE(small->Add(edits[0].view()).ok());
  REQUIRE(small->ReleaseMemory().ok());  // never spilled: keeps its edit
  CHECK(small->runs_spilled() == 0);
  CHECK(memory.taken() > 0);
  auto it = big->Finish();
  REQUIRE(it);
  testutil::Drained got = Drain(**it);
  CHECK(got.status.ok());
  CHECK(got.edits == testutil::StableSorted(edits));
}

}  // namespace
}  // namespace webdb
