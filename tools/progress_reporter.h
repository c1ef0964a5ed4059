// ProgressReporter: turns progress callbacks (WriterOptions::progress, a tool's own
// loops) into throttled one-line reports for a human, e.g.
//   webdb: stage 3 linksByMD5: 1.2M records, 850k rec/s, 45%
//   distwriter: slicing the calls: 1.2G bytes, 300.0M bytes/s, 60%
// (a percentage only while the fraction done is known and at most 1).
// At most one line per interval is printed, and none during the first interval, so
// quick commands stay silent. The rate is measured from the first report of a step.
//
// The reporter writes to a FILE* it does not own. Not thread-safe: report from the
// thread that drives the work (as the writer does).
#ifndef TOOLS_PROGRESS_REPORTER_H_
#define TOOLS_PROGRESS_REPORTER_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "webdb/util/progress.h"

namespace tools {

using webdb::Progress;
using webdb::ProgressFn;

class ProgressReporter {
 public:
  using Clock = std::chrono::steady_clock;
  using NowFn = std::function<Clock::time_point()>;

  // label starts every line ("webdb", "distwriter: writer 2"). now tells the time (a
  // test passes its own clock).
  explicit ProgressReporter(std::FILE* out, std::string label = "webdb",
                            Clock::duration interval = std::chrono::milliseconds(500),
                            NowFn now = Clock::now);
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // `done` records of `total` (total 0: unknown, no percentage).
  void Report(const Progress& progress);
  // `done` records (or other units), with the fraction of the work done given separately
  // (negative: unknown), for work measured in one unit and counted in another (bytes vs
  // calls).
  void Report(std::string_view step, uint64_t done, double fraction,
              std::string_view unit = "records");

  // A callback for WriterOptions::progress that reports here. REQUIRES: this reporter
  // outlives the callback.
  ProgressFn AsProgressFn();

  // 1234 -> "1234", 56789 -> "56.8k", 1234567 -> "1.2M", ...
  static std::string HumanCount(double n);

 private:
  std::FILE* const out_;
  const std::string label_;
  const Clock::duration interval_;
  const NowFn now_;
  Clock::time_point last_print_;
  std::string step_;
  Clock::time_point step_start_;
};

}  // namespace tools

#endif  // TOOLS_PROGRESS_REPORTER_H_
