// The arithmetic of link analysis (shared/spec/link-analysis.md; docs/DESIGN.md, "Link
// analysis"): scores are doubles, and every sum of them — a content's shares, a page's
// inlinks, the dangling sum, the L1 change — is a sum of Fixed numbers, each double turned
// once into a whole count of 2^-64. Integers add up to the same result in any order, so
// the scores do not depend on how the work is split into blocks, threads or writers.
//
// Headroom: a Fixed holds magnitudes below 2^63. Starting scores are refused beyond
// kMaxStartScore and dbs beyond kMaxRankPages pages, so that every sum of scores stays
// below 2^62, and sums of absolute values (the L1 change, unsigned) below 2^64.
//
// Pure functions; thread-safe.
#ifndef WEBDB_RANK_RANK_MATH_H_
#define WEBDB_RANK_RANK_MATH_H_

#include <cstdint>
#include <string_view>

#include "nutchfs/status.h"
#include "webdb/db/manifest.h"
#include "webdb/table/record.h"

namespace webdb {

using Fixed = __int128;              // a count of 2^-64
using FixedSum = unsigned __int128;  // a sum of magnitudes, same unit

constexpr double kMaxStartScore = 0x1p30;
constexpr uint64_t kMaxRankPages = uint64_t{1} << 32;

// InvalidArgument naming the option when one is out of range: iterations >= 1, epsilon
// finite and >= 0, 0 <= damping < 1.
Status ValidateRankOptions(const RankOptions& options);

// The Fixed nearest to x (ties to even). REQUIRES: |x| < 2^62.
inline Fixed ToFixed(double x) { return static_cast<Fixed>(__builtin_nearbyint(x * 0x1p64)); }
// The double nearest to f's value.
inline double ToDouble(Fixed f) { return static_cast<double>(f) * 0x1p-64; }
inline double ToDouble(FixedSum f) { return static_cast<double>(f) * 0x1p-64; }

// What a page with this score gives each page it links to: score / outdeg, as a Fixed;
// 0 for a dangling page (outdeg 0), whose score is spread over all pages instead.
inline Fixed ShareOf(double score, uint32_t outdeg) {
  return outdeg == 0 ? 0 : ToFixed(score / outdeg);
}

// |ToFixed(after) - ToFixed(before)|: one page's part of the L1 change.
inline FixedSum ChangeOf(double before, double after) {
  const Fixed d = ToFixed(after) - ToFixed(before);
  return static_cast<FixedSum>(d < 0 ? -d : d);
}

// r'(t) = (1 - d) + d * (in(t) + D / N), from the exact sums: `in` the shares t receives,
// `spread` = D / N (DanglingSpread).
inline double NextScore(Fixed in, double spread, double damping) {
  return (1 - damping) + damping * (ToDouble(in) + spread);
}
// D / N, the part of the dangling pages' scores every page receives. REQUIRES: pages > 0.
inline double DanglingSpread(Fixed dangling, uint64_t pages) {
  return ToDouble(dangling) / static_cast<double>(pages);
}

// Whether a session stops after an iteration that changed the scores by l1 in all: when
// l1 < epsilon x N.
inline bool Converged(FixedSum l1, uint64_t pages, double epsilon) {
  return ToDouble(l1) < epsilon * static_cast<double>(pages);
}

// OK when score can start a rank: finite and within kMaxStartScore; InvalidArgument
// naming the page (its key in table t) otherwise. The page is described only then: the
// graph checks every page's score.
Status CheckStartScore(float score, TableId t, std::string_view key);

}  // namespace webdb

#endif  // WEBDB_RANK_RANK_MATH_H_
