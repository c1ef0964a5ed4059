// The two passes of one rank iteration (docs/DESIGN.md, "Link analysis"), as pure
// computations over runs of entries in id order: they know nothing of files, blocks on
// disk or writers, which their drivers (rank_engine.h) handle.
//
// Pass A (GroupSummer) walks the pages and their scores and sums, for each group (an md5
// with links), the shares of its pages: S(m) = sum of r(u) / outdeg(u) over its pages with
// outdeg > 0; the scores of the dangling pages add up to D.
// Pass B (BlockScores) takes, for one block of target ids, the sum S of every group linking
// into it, once for each of the group's targets there, then walks the block's pages and
// their scores and computes each new score:
//   r'(t) = (1 - d) + d * (S-sums(t) - [t links to itself] * share(t) + D / N).
//
// Plain objects, used by one thread.
#ifndef WEBDB_RANK_RANK_PASSES_H_
#define WEBDB_RANK_RANK_PASSES_H_

#include <cstddef>
#include <span>
#include <vector>

#include "webdb/rank/rank_files.h"
#include "webdb/rank/rank_math.h"

namespace webdb {

class GroupSummer {
 public:
  // Takes the next pages in id order with their scores (of equal lengths); appends to
  // *sums the sum of every group that ends before them.
  void Add(std::span<const PageInfo> pages, std::span<const double> scores,
           std::vector<Fixed>* sums);
  // After the last page: appends the sum of the last group, if it is open.
  void Finish(std::vector<Fixed>* sums);
  Fixed dangling() const { return dangling_; }

 private:
  Fixed dangling_ = 0;
  Fixed sum_ = 0;
  bool open_ = false;
};

class BlockScores {
 public:
  // spread = D / N (DanglingSpread).
  BlockScores(double damping, double spread) : damping_(damping), spread_(spread) {}

  // Starts a block of in.size() targets, whose accumulators `in` holds (zeroed here);
  // the caller owns their memory and keeps it until the block is done.
  void Start(std::span<Fixed> in);
  // A group whose sum is `sum` links to the targets at these offsets from the block's
  // first id. REQUIRES: offsets < ids.
  void AddGroup(Fixed sum, std::span<const uint32_t> offsets) {
    for (uint32_t o : offsets) in_[o] += sum;
  }
  // Computes the new scores of the block's next pages, in order, from their old scores;
  // appends them to *next and adds their changes to l1().
  void Update(std::span<const PageInfo> pages, std::span<const double> scores,
              std::vector<double>* next);
  // Targets of the block updated so far.
  size_t done() const { return done_; }
  FixedSum l1() const { return l1_; }

 private:
  const double damping_;
  const double spread_;
  std::span<Fixed> in_;
  size_t done_ = 0;
  FixedSum l1_ = 0;
};

}  // namespace webdb

#endif  // WEBDB_RANK_RANK_PASSES_H_
