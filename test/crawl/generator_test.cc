#include "crawl/generator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>

#include "crawl/domain.h"
#include "crawl/url.h"
#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/writer.h"

namespace crawl {
namespace {

constexpr int64_t kNow = 1000000;

std::vector<webdb::Page> RandomPages(std::mt19937_64& rng, int n) {
  std::vector<webdb::Page> pages;
  const int64_t fetch_times[] = {0, kNow - 1, kNow, kNow + 1, int64_t{1} << 62};
  const float scores[] = {0.5f, 1.0f, 1.0f, 2.0f, -1.0f, 0.0f, 7.25f};
  for (int i = 0; i < n; ++i) {
    // One draw a statement: the operands of + are unsequenced (compilers differ).
    const std::string host = std::to_string(rng() % 6);
    const std::string domain = std::to_string(rng() % 3);
    const char* tld = rng() % 4 == 0 ? ".co.uk" : "";
    webdb::Page p = webdb::Page::WithDefaults("http://h" + host + ".d" + domain + ".example" + tld +
                                              "/p" + std::to_string(i));
    p.next_fetch = fetch_times[rng() % 5];
    p.score = scores[rng() % 7];
    pages.push_back(p);
  }
  return pages;
}

// The fetch list by definition: due pages best first, skipping pages over the cap.
std::vector<std::string> BruteForce(std::vector<webdb::Page> pages, const GenerateOptions& o) {
  std::sort(pages.begin(), pages.end(), [](const webdb::Page& a, const webdb::Page& b) {
    return a.score != b.score ? a.score > b.score : a.url < b.url;
  });
  std::map<std::string, uint64_t> per_group;
  std::vector<std::string> out;
  for (const auto& p : pages) {
    if (p.next_fetch > o.now_ms || out.size() >= o.top_n) continue;
    std::string group = o.group_by == GenerateOptions::GroupBy::kHost
                            ? std::string(HostOfUrl(p.url))
                            : RegistrableDomain(HostOfUrl(p.url));
    if (o.max_per_group > 0 && per_group[group]++ >= o.max_per_group) continue;
    out.push_back(p.url);
  }
  return out;
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
  std::string db = dir.File("db");
  REQUIRE(webdb::Writer::Create(*env, db).ok());
  auto pages = RandomPages(rng, 3000);
  testutil::Session session;
  for (const auto& p : pages) session.push_back(testutil::AddPageWithScoreCall(p));
  REQUIRE(testutil::RunSession(*env, db, session).ok());
  for (int round = 0; round < 12; ++round) {
    GenerateOptions o;
    o.now_ms = kNow;
    o.top_n = rng() % 3 == 0 ? 100000 : rng() % 700;
    o.max_per_group = rng() % 2 ? 0 : rng() % 200;
    o.group_by = rng() % 2 ? GenerateOptions::GroupBy::kHost : GenerateOptions::GroupBy::kDomain;
    o.memory_budget = rng() % 2 ? size_t{1} << 20 : size_t{64} << 10;  // small: sort runs spill
    o.tmp_dir = dir.File("tmp");
    INFO("top " << o.top_n << " cap " << o.max_per_group << " budget " << o.memory_budget);
    GenerateStats stats;
    auto got = Run(*env, db, o, &stats);
    CHECK(got == BruteForce(pages, o));
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
  std::string db = dir.File("db");
  REQUIRE(webdb::Writer::Create(*env, db).ok());
  auto pages = RandomPages(rng, 2000);
  testutil::Session session;
  for (const auto& p : pages) session.push_back(testutil::AddPageWithScoreCall(p));
  REQUIRE(testutil::RunSession(*env, db, session).ok());
  // 36 hosts on 4 registrable domains.
  for (uint64_t cap : {uint64_t{0}, uint64_t{2}, uint64_t{30}}) {
    GenerateOptions o;
    o.now_ms = kNow;
    o.max_per_group = cap;
    o.group_by = cap == 2 ? GenerateOptions::GroupBy::kHost : GenerateOptions::GroupBy::kDomain;
    o.tmp_dir = dir.File("tmp");
    INFO("cap " << cap);
    GenerateStats stats;
    // 300 candidates of ~300 bytes fit in 1 MiB: in memory, whatever the db size.
    o.top_n = 300;
    o.memory_budget = size_t{1} << 20;
    CHECK(Run(*env, db, o, &stats) == BruteForce(pages, o));
    CHECK_FALSE(stats.sorted);
    // Not in 4 KiB, even with a cap (over 50 candidates): the external sorts.
    o.top_n = 100000;
    o.memory_budget = size_t{4} << 10;
    CHECK(Run(*env, db, o, &stats) == BruteForce(pages, o));
    CHECK(stats.sorted);
    CHECK(stats.selected > 50);
    o.top_n = 300;
    CHECK(Run(*env, db, o, &stats) == BruteForce(pages, o));
    CHECK(stats.sorted);
  }
}

TEST_CASE("leased pages are not handed out again", "[generate]") {
  std::mt19937_64 rng(7);
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string db = dir.File("db");
  REQUIRE(webdb::Writer::Create(*env, db).ok());
  auto pages = RandomPages(rng, 500);
  testutil::Session session;
  for (const auto& p : pages) session.push_back(testutil::AddPageWithScoreCall(p));
  REQUIRE(testutil::RunSession(*env, db, session).ok());
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
