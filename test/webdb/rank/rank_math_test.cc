// The arithmetic of link analysis (webdb/rank/rank_math.h): fixed point sums that do not
// depend on their order, the options' ranges, the starting scores' bounds.
#include "webdb/rank/rank_math.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

namespace webdb {
namespace {

TEST_CASE("fixed point: exact conversions, nearest rounding, order-free sums", "[rank]") {
  CHECK(ToFixed(1.0) == Fixed{1} << 64);
  CHECK(ToFixed(-0.5) == -(Fixed{1} << 63));
  CHECK(ToDouble(ToFixed(0.85)) == 0.85);  // doubles above 2^-11 convert exactly
  CHECK(ToFixed(0x1p-65) == 0);            // half a unit: ties to even
  CHECK(ToFixed(0x1p-64 * 1.5) == 2);
  CHECK(ToFixed(0x1p30) == Fixed{1} << 94);

  // Doubles summed in two orders differ; their Fixed sums never do.
  std::mt19937_64 rng(5);
  std::vector<double> xs;
  for (int i = 0; i < 1000; ++i)
    xs.push_back(std::ldexp(static_cast<double>(rng() % 1000000), -17));
  double forward = 0, backward = 0;
  Fixed fixed_forward = 0, fixed_backward = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    forward += xs[i] / 3;
    fixed_forward += ShareOf(xs[i], 3);
    backward += xs[xs.size() - 1 - i] / 3;
    fixed_backward += ShareOf(xs[xs.size() - 1 - i], 3);
  }
  CHECK(fixed_forward == fixed_backward);
  CHECK(std::fabs(ToDouble(fixed_forward) - forward) < 1e-9);
  (void)backward;
}

TEST_CASE("shares, changes, next scores and the stop", "[rank]") {
  CHECK(ShareOf(3.0, 0) == 0);  // dangling: spread instead
  CHECK(ShareOf(3.0, 2) == ToFixed(1.5));
  CHECK(ChangeOf(1.0, 0.75) == static_cast<FixedSum>(ToFixed(0.25)));
  CHECK(ChangeOf(0.75, 1.0) == static_cast<FixedSum>(ToFixed(0.25)));
  CHECK(NextScore(ToFixed(1.0), 0, 0.85) == 1.0);  // a cycle's page stays at 1
  CHECK(NextScore(0, 0, 0) == 1.0);
  CHECK(DanglingSpread(ToFixed(3.0), 4) == 0.75);
  CHECK(Converged(static_cast<FixedSum>(ToFixed(0.099)), 1000, 1e-4));
  CHECK_FALSE(Converged(static_cast<FixedSum>(ToFixed(0.1)), 1000, 1e-4));
  CHECK_FALSE(Converged(0, 1000, 0));  // epsilon 0: never early
}

TEST_CASE("rank options and starting scores out of range are refused", "[rank]") {
  CHECK(ValidateRankOptions({}).ok());
  CHECK(ValidateRankOptions({1, 0, 0}).ok());
  for (RankOptions bad :
       {RankOptions{0, 1e-4, 0.85}, RankOptions{10, -1e-9, 0.85}, RankOptions{10, INFINITY, 0.85},
        RankOptions{10, 1e-4, 1.0}, RankOptions{10, 1e-4, -0.01}, RankOptions{10, 1e-4, NAN}}) {
    Status s = ValidateRankOptions(bad);
    CHECK(s.IsInvalidArgument());
  }
  const std::string key = std::string(16, 'm') + "http://p.example/";
  CHECK(CheckStartScore(0x1p30f, TableId::kPagesByMd5, key).ok());
  CHECK(CheckStartScore(-0x1p30f, TableId::kPagesByMd5, key).ok());
  for (float bad : {0x1.000002p30f, -3e38f, INFINITY, NAN}) {
    Status s = CheckStartScore(bad, TableId::kPagesByMd5, key);
    CHECK(s.IsInvalidArgument());
    CHECK_THAT(s.ToString(), Catch::Contains(DescribeKey(TableId::kPagesByMd5, key)));
    CHECK_THAT(s.ToString(), Catch::Contains("http://p.example/"));
  }
}

}  // namespace
}  // namespace webdb
