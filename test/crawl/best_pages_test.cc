#include "crawl/best_pages.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "test/util/fetch_list_model.h"

namespace crawl {
namespace {

using testutil::ExpectedFetchList;

struct Outcome {
  bool fits = true;
  std::vector<std::string> urls;
  uint64_t compactions = 0;
  size_t peak_memory = 0;
};

// Offers the due pages in url order, as generate's scan does, then emits the selection.
Outcome Select(std::vector<webdb::Page> pages, const GenerateOptions& o) {
  std::sort(pages.begin(), pages.end(),
            [](const webdb::Page& a, const webdb::Page& b) { return a.url < b.url; });
  BestPages best(o);
  Outcome out;
  for (const auto& p : pages) {
    if (p.next_fetch <= o.now_ms && !best.Offer(p)) {
      out.fits = false;
      break;
    }
  }
  if (out.fits) {
    uint64_t selected = 0;
    REQUIRE(best.Emit([&](const webdb::Page& p) {
      out.urls.push_back(p.url);
      return Status::OK();
    }, &selected).ok());
    CHECK(selected == out.urls.size());
  }
  out.compactions = best.compactions();
  out.peak_memory = best.peak_memory();
  return out;
}

// Select, which must fit, checked against the brute-force selection and the budget.
Outcome SelectFitting(const std::vector<webdb::Page>& pages, const GenerateOptions& o) {
  Outcome got = Select(pages, o);
  REQUIRE(got.fits);
  CHECK(got.urls == ExpectedFetchList(pages, o));
  CHECK(got.peak_memory <= o.memory_budget);
  return got;
}

GenerateOptions Options(uint64_t top_n, uint64_t cap, size_t budget) {
  GenerateOptions o;
  o.now_ms = testutil::kFetchListNow;
  o.top_n = top_n;
  o.max_per_group = cap;
  o.memory_budget = budget;
  return o;
}

TEST_CASE("the candidates in memory give the brute-force selection", "[generate][random]") {
  auto seed = std::random_device()();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const size_t budgets[] = {size_t{256} << 10, size_t{512} << 10, size_t{64} << 20};
  for (int round = 0; round < 40; ++round) {
    testutil::RandomPagesOptions po;
    po.pages = 1 + static_cast<int>(rng() % 8000);
    po.hosts = 1 + static_cast<int>(rng() % 60);
    po.max_padding = rng() % 2 ? 0 : 300;
    auto pages = testutil::RandomPages(rng, po);
    GenerateOptions o = Options(rng() % 4 == 0 ? 100000 : 1 + rng() % 3000,
                                rng() % 3 == 0 ? 0 : 1 + rng() % 200, budgets[rng() % 3]);
    o.group_by = rng() % 2 ? GenerateOptions::GroupBy::kHost : GenerateOptions::GroupBy::kDomain;
    INFO("pages " << po.pages << " hosts " << po.hosts << " padding " << po.max_padding << " top "
                  << o.top_n << " cap " << o.max_per_group << " budget " << o.memory_budget);
    Outcome got = Select(pages, o);
    if (got.fits) CHECK(got.urls == ExpectedFetchList(pages, o));
    CHECK(got.peak_memory <= o.memory_budget);
  }
}

// Scores that rise with the url: every page beats every candidate so far, nothing is
// turned away by a threshold, and the records are dropped all over the arena.
TEST_CASE("compactions keep the candidates within the budget", "[generate]") {
  std::mt19937_64 rng(5);
  auto pages = testutil::RandomPages(rng, {.pages = 20000, .hosts = 40, .max_padding = 400});
  std::sort(pages.begin(), pages.end(),
            [](const webdb::Page& a, const webdb::Page& b) { return a.url < b.url; });
  for (size_t i = 0; i < pages.size(); ++i) {
    pages[i].score = static_cast<float>(i / 3);  // and ties
    pages[i].next_fetch = 0;
  }
  for (uint64_t cap : {uint64_t{0}, uint64_t{20}}) {
    INFO("cap " << cap);
    GenerateOptions o = Options(700, cap, size_t{512} << 10);
    Outcome got = SelectFitting(pages, o);
    // 20000 records of ~270 bytes through 512 KiB: 700 kept take two chunks, and the next
    // ~700 fill the third, where a fourth would not fit: compactions for memory, well
    // before 1,024 records are added.
    CHECK(got.compactions > 10);
    CHECK(got.peak_memory > o.memory_budget / 4 * 3);
  }
}

TEST_CASE("with one score the first candidates set the thresholds", "[generate]") {
  std::mt19937_64 rng(6);
  auto pages = testutil::RandomPages(rng, {.pages = 50000, .hosts = 200, .all_due = true});
  for (auto& p : pages) p.score = 1.0f;
  for (uint64_t cap : {uint64_t{0}, uint64_t{30}}) {
    INFO("cap " << cap);
    Outcome got = SelectFitting(pages, Options(2000, cap, size_t{64} << 20));
    // The first batches fill the selection; every later page is turned away by the
    // threshold, so the candidates never grow past a few batches.
    CHECK(got.compactions <= 4);
    CHECK(got.peak_memory < size_t{2} << 20);
  }
}

TEST_CASE("a selection larger than 3/4 of the budget is given up", "[generate]") {
  std::mt19937_64 rng(8);
  auto pages = testutil::RandomPages(rng, {.pages = 20000, .all_due = true});
  for (uint64_t cap : {uint64_t{0}, uint64_t{1000}}) {
    INFO("cap " << cap);
    GenerateOptions o = Options(100000, cap, size_t{1} << 20);
    Outcome got = Select(pages, o);
    CHECK_FALSE(got.fits);
    CHECK(got.compactions >= 1);
    CHECK(got.peak_memory <= o.memory_budget);
  }
  // Nor can a budget smaller than one chunk of records hold any.
  GenerateOptions o = Options(1, 0, size_t{64} << 10);
  CHECK_FALSE(Select(pages, o).fits);
}

}  // namespace
}  // namespace crawl
