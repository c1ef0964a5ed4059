#include "webdb/rank/rank_passes.h"

#include <algorithm>

namespace webdb {

void GroupSummer::Add(std::span<const PageInfo> pages, std::span<const double> scores,
                      std::vector<Fixed>* sums) {
  for (size_t i = 0; i < pages.size(); ++i) {
    const PageInfo& p = pages[i];
    if (p.flags & PageInfo::kFirstOfMd5) {
      if (open_) sums->push_back(sum_);
      sum_ = 0;
      open_ = (p.flags & PageInfo::kInGroup) != 0;
    }
    if (p.outdeg == 0) {
      dangling_ += ToFixed(scores[i]);
    } else {
      sum_ += ShareOf(scores[i], p.outdeg);
    }
  }
}

void GroupSummer::Finish(std::vector<Fixed>* sums) {
  if (open_) sums->push_back(sum_);
  open_ = false;
}

void BlockScores::Start(std::span<Fixed> in) {
  in_ = in;
  std::fill(in_.begin(), in_.end(), 0);
  done_ = 0;
}

void BlockScores::Update(std::span<const PageInfo> pages, std::span<const double> scores,
                         std::vector<double>* next) {
  for (size_t i = 0; i < pages.size(); ++i) {
    Fixed in = in_[done_ + i];
    // The group of its md5 links to it, but a page's own link does not count.
    if (pages[i].flags & PageInfo::kSelfLink) in -= ShareOf(scores[i], pages[i].outdeg);
    const double r = NextScore(in, spread_, damping_);
    l1_ += ChangeOf(scores[i], r);
    next->push_back(r);
  }
  done_ += pages.size();
}

}  // namespace webdb
