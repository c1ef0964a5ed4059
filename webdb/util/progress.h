// Progress reports of long steps, for a human on stderr. Plain values; a ProgressFn is
// called by the thread doing the step.
#ifndef WEBDB_UTIL_PROGRESS_H_
#define WEBDB_UTIL_PROGRESS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace webdb {

// Progress of a long step, for a human on stderr: `done` of `total` units (total 0 when
// unknown) of the named step ("sort pagesByURL edits", "stage 1 pagesByURL", ...).
struct Progress {
  std::string_view step;
  uint64_t done = 0;
  uint64_t total = 0;
  std::string_view unit = "records";  // what done and total count
};
using ProgressFn = std::function<void(const Progress&)>;

// The progress of a scan counted row by row: every kEvery-th row is reported to fn (when
// it is not empty), as `step`, rows so far of `total`. Holds a reference to fn.
class RowProgress {
 public:
  RowProgress(const ProgressFn& fn, std::string step, uint64_t total)
      : fn_(fn), step_(std::move(step)), total_(total) {}
  void Row() {
    if (fn_ && ++rows_ % kEvery == 0) fn_({step_, rows_, total_});
  }
  static constexpr uint64_t kEvery = 4096;

 private:
  const ProgressFn& fn_;
  const std::string step_;
  const uint64_t total_;
  uint64_t rows_ = 0;
};

}  // namespace webdb

#endif  // WEBDB_UTIL_PROGRESS_H_
