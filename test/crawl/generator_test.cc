#include "crawl/generator.h"

#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "test/util/fetch_list_model.h"
#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/writer.h"

namespace crawl {
namespace {

constexpr int64_t kNow = testutil::kFetchListNow;
using testutil::ExpectedFetchList;

// A new db at dir/db holding pages.
std::string CreateDb(nutchfs::Env& env, const testutil::TempDir& dir,
                     const std::vector<webdb::Page>& pages) {
  std::string db = dir.File("db");
  REQUIRE(webdb::Writer::Create(env, db).ok());
  testutil::Session session;
  for (const auto& p : pages) session.push_back(testutil::AddPageWithScoreCall(p));
  REQUIRE(testutil::RunSession(env, db, session).ok());
  return db;
}

std::vector<std::string> Run(nutchfs::Env& env, const std::string& db, const GenerateOptions& o,
                             GenerateStats* stats) {
  auto reader = webdb::Reader::Open(env, db);
  REQUIRE(reader);
  std::vector<std::string> urls;
  Status st = Generate(env, **reader, o, [&](const webdb::Page& p) {
    urls.push_back(p.url);
    return Status::OK();
  }, stats);
  REQUIRE(st.ok());
  return urls;
}

TEST_CASE("descending score keys", "[generate]") {
  const float ordered[] = {3.4e38f, 7.0f, 1.0f, 1e-30f, 0.0f, -1e-30f, -1.0f, -3.4e38f};
  for (size_t i = 0; i + 1 < std::size(ordered); ++i) {
    CHECK(DescendingScoreKey(ordered[i]) < DescendingScoreKey(ordered[i + 1]));
  }
}

TEST_CASE("generate matches a brute-force model", "[generate][random]") {
  auto seed = std::random_device()();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto pages = testutil::RandomPages(rng, {.pages = 3000, .max_padding = 200});
  std::string db = CreateDb(*env, dir, pages);
  // Budgets: below one chunk of candidates (straight to the external sorts, whose runs
  // spill), a few chunks (the candidates compact to fit, or give up), plenty.
  const size_t budgets[] = {size_t{64} << 10, size_t{384} << 10, size_t{1} << 20, size_t{64} << 20};
  for (int round = 0; round < 16; ++round) {
    GenerateOptions o;
    o.now_ms = kNow;
    o.top_n = rng() % 3 == 0 ? 100000 : rng() % 1500;
    o.max_per_group = rng() % 3 == 0 ? 0 : rng() % 100;
    o.group_by = rng() % 2 ? GenerateOptions::GroupBy::kHost : GenerateOptions::GroupBy::kDomain;
    o.memory_budget = budgets[rng() % std::size(budgets)];
    o.tmp_dir = dir.File("tmp");
    INFO("top " << o.top_n << " cap " << o.max_per_group << " budget " << o.memory_budget);
    GenerateStats stats;
    auto got = Run(*env, db, o, &stats);
    CHECK(got == ExpectedFetchList(pages, o));
    CHECK(stats.pages == pages.size());
    CHECK(stats.selected == got.size());
  }
}

TEST_CASE("generate selects in memory when the candidates fit, else sorts", "[generate][random]") {
  auto seed = std::random_device()();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto pages = testutil::RandomPages(rng, {.pages = 2000});
  std::string db = CreateDb(*env, dir, pages);
  for (uint64_t cap : {uint64_t{0}, uint64_t{2}, uint64_t{30}}) {
    GenerateOptions o;
    o.now_ms = kNow;
    o.max_per_group = cap;
    o.group_by = cap == 2 ? GenerateOptions::GroupBy::kHost : GenerateOptions::GroupBy::kDomain;
    o.tmp_dir = dir.File("tmp");
    INFO("cap " << cap);
    GenerateStats stats;
    // 300 candidates of ~120 bytes fit in 1 MiB: in memory, whatever the db size.
    o.top_n = 300;
    o.memory_budget = size_t{1} << 20;
    CHECK(Run(*env, db, o, &stats) == ExpectedFetchList(pages, o));
    CHECK_FALSE(stats.sorted);
    // Not in 4 KiB, even with a cap (over 50 candidates): the external sorts.
    o.top_n = 100000;
    o.memory_budget = size_t{4} << 10;
    CHECK(Run(*env, db, o, &stats) == ExpectedFetchList(pages, o));
    CHECK(stats.sorted);
    CHECK(stats.selected > 50);
    o.top_n = 300;
    CHECK(Run(*env, db, o, &stats) == ExpectedFetchList(pages, o));
    CHECK(stats.sorted);
  }
}

// The benchmark's case scaled down (bench/generate_bench.sh, top-capped): a capped
// selection of many candidates on many hosts, every page due and of one score.
TEST_CASE("a capped selection of many candidates stays in memory", "[generate]") {
  std::mt19937_64 rng(11);
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto pages = testutil::RandomPages(rng, {.pages = 12000, .hosts = 100, .all_due = true});
  for (auto& p : pages) p.score = 1.0f;
  std::string db = CreateDb(*env, dir, pages);
  GenerateOptions o;
  o.now_ms = kNow;
  o.top_n = 5000;
  o.max_per_group = 100;
  o.memory_budget = size_t{1} << 20;
  o.tmp_dir = dir.File("tmp");
  GenerateStats stats;
  // 5000 candidates: ~600 KiB as records in chunks, well over 1 MiB as tree nodes.
  CHECK(Run(*env, db, o, &stats) == ExpectedFetchList(pages, o));
  CHECK(stats.selected == 5000);
  CHECK_FALSE(stats.sorted);
  // The selection holds more than 3/4 of the budget: it is given up for the sorts.
  o.memory_budget = size_t{640} << 10;
  CHECK(Run(*env, db, o, &stats) == ExpectedFetchList(pages, o));
  CHECK(stats.sorted);
}

TEST_CASE("leased pages are not handed out again", "[generate]") {
  std::mt19937_64 rng(7);
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string db = CreateDb(*env, dir, testutil::RandomPages(rng, {.pages = 500}));
  GenerateOptions o;
  o.now_ms = kNow;
  o.top_n = 60;
  o.max_per_group = 4;
  o.tmp_dir = dir.File("tmp");
  std::set<std::string> seen;
  for (int round = 0; round < 3; ++round) {
    auto reader = webdb::Reader::Open(*env, db);
    REQUIRE(reader);
    auto writer = webdb::Writer::Open(*env, db, {});
    REQUIRE(writer);
    GenerateStats stats;
    uint64_t n = 0;
    REQUIRE(Generate(*env, **reader, o, [&](const webdb::Page& p) {
      CHECK(seen.insert(p.url).second);
      ++n;
      webdb::Page leased = p;
      leased.next_fetch = kNow + 7 * 86400000LL;
      return (*writer)->AddPage(leased);
    }, &stats).ok());
    REQUIRE((*writer)->Close().ok());
    CHECK(n > 0);
  }
}

}  // namespace
}  // namespace crawl
