#include "webdb/rank/rank_math.h"

#include <fmt/format.h>

#include <cmath>

namespace webdb {

Status ValidateRankOptions(const RankOptions& options) {
  if (options.iterations < 1) {
    return Status::InvalidArgument("--iterations 0: at least one iteration");
  }
  if (!std::isfinite(options.epsilon) || options.epsilon < 0) {
    return Status::InvalidArgument(
        fmt::format("--epsilon {}: expected a number >= 0", options.epsilon));
  }
  if (!(options.damping >= 0 && options.damping < 1)) {
    return Status::InvalidArgument(
        fmt::format("--damping {}: expected a number in [0, 1)", options.damping));
  }
  return Status::OK();
}

Status CheckStartScore(float score, TableId t, std::string_view key) {
  if (std::isfinite(score) && std::fabs(score) <= kMaxStartScore) return Status::OK();
  return Status::InvalidArgument(
      fmt::format("{}: score {} is beyond what rank sums exactly (magnitude at most 2^30); "
                  "set it with addPageWithScore first",
                  DescribeKey(t, key), score));
}

}  // namespace webdb
