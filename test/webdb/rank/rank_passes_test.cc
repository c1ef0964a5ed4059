// The two passes of an iteration (webdb/rank/rank_passes.h) on hand-made pages: a group's
// sum takes the shares of its pages with outlinks, dangling pages go to D, a page's own
// share is taken back from what its group gives it, and splitting the input into spans or
// blocks changes nothing.
#include "webdb/rank/rank_passes.h"

#include <catch2/catch.hpp>

namespace webdb {
namespace {

constexpr uint8_t kFirst = PageInfo::kFirstOfMd5;
constexpr uint8_t kGroup = PageInfo::kInGroup;
constexpr uint8_t kSelf = PageInfo::kSelfLink;

TEST_CASE("pass A: group sums and the dangling sum", "[rank]") {
  // md5 A (two pages, 2 links; the second links to itself), md5 B (no links), md5 C
  // (one page whose only link is to itself: dangling).
  const std::vector<PageInfo> pages = {
      {2, kFirst | kGroup}, {1, kGroup | kSelf}, {0, kFirst}, {0, kFirst | kGroup | kSelf}};
  const std::vector<double> scores = {1.0, 3.0, 0.5, 2.0};
  for (size_t cut = 0; cut <= pages.size(); ++cut) {
    CAPTURE(cut);
    GroupSummer a;
    std::vector<Fixed> sums;
    a.Add(std::span(pages).first(cut), std::span(scores).first(cut), &sums);
    a.Add(std::span(pages).subspan(cut), std::span(scores).subspan(cut), &sums);
    a.Finish(&sums);
    CHECK(sums == std::vector<Fixed>{ToFixed(0.5) + ToFixed(3.0), 0});
    CHECK(a.dangling() == ToFixed(0.5) + ToFixed(2.0));
  }
}

TEST_CASE("pass B: inlinks, the own share taken back, D spread, L1", "[rank]") {
  const std::vector<PageInfo> pages = {{2, kFirst | kGroup}, {1, kGroup | kSelf}};
  const std::vector<double> scores = {1.0, 3.0};
  BlockScores b(0.5, /*spread=*/0.25);
  std::vector<Fixed> in = {7, 9};  // a block before left its sums: Start clears them
  b.Start(in);
  // The group of both pages (sum 0.5 + 3) links to page 1 (the second page's own url);
  // another group (sum 2) links to both.
  b.AddGroup(ToFixed(3.5), std::vector<uint32_t>{1});
  b.AddGroup(ToFixed(2.0), std::vector<uint32_t>{0, 1});
  std::vector<double> next;
  b.Update(std::span(pages).first(1), std::span(scores).first(1), &next);
  b.Update(std::span(pages).subspan(1), std::span(scores).subspan(1), &next);
  CHECK(b.done() == 2);
  REQUIRE(next.size() == 2);
  CHECK(next[0] == 0.5 + 0.5 * (2.0 + 0.25));
  CHECK(next[1] == 0.5 + 0.5 * (3.5 - 3.0 + 2.0 + 0.25));
  CHECK(ToDouble(b.l1()) == std::abs(next[0] - 1.0) + std::abs(next[1] - 3.0));
}

}  // namespace
}  // namespace webdb
