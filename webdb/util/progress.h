// Progress reports of long steps, for a human on stderr. Plain values; a ProgressFn is
// called by the thread doing the step.
#ifndef WEBDB_UTIL_PROGRESS_H_
#define WEBDB_UTIL_PROGRESS_H_

#include <cstdint>
#include <functional>
#include <string_view>

namespace webdb {

// Progress of a long step, for a human on stderr: `done` of `total` units (total 0 when
// unknown) of the named step ("sort pagesByURL edits", "stage 1 pagesByURL", ...).
struct Progress {
  std::string_view step;
  uint64_t done = 0;
  uint64_t total = 0;
};
using ProgressFn = std::function<void(const Progress&)>;

}  // namespace webdb

#endif  // WEBDB_UTIL_PROGRESS_H_
