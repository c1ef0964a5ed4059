#include "tools/progress_reporter.h"

#include <fmt/format.h>

namespace tools {

ProgressReporter::ProgressReporter(std::FILE* out, std::string label, Clock::duration interval,
                                   NowFn now)
    : out_(out),
      label_(std::move(label)),
      interval_(interval),
      now_(std::move(now)),
      last_print_(now_()) {}

std::string ProgressReporter::HumanCount(double n) {
  if (n < 10000) return fmt::format("{:.0f}", n);
  if (n < 1e6) return fmt::format("{:.1f}k", n / 1e3);
  if (n < 1e9) return fmt::format("{:.1f}M", n / 1e6);
  return fmt::format("{:.1f}G", n / 1e9);
}

void ProgressReporter::Report(const Progress& progress) {
  double fraction = progress.total > 0 ? static_cast<double>(progress.done) /
                                             static_cast<double>(progress.total)
                                       : -1;
  Report(progress.step, progress.done, fraction, progress.unit);
}

void ProgressReporter::Report(std::string_view step, uint64_t done, double fraction,
                              std::string_view unit) {
  Clock::time_point now = now_();
  if (step != step_) {
    step_.assign(step);
    step_start_ = now;
  }
  if (now - last_print_ < interval_) return;
  last_print_ = now;
  double seconds = std::chrono::duration<double>(now - step_start_).count();
  std::string line = fmt::format("{}: {}: {} {}", label_, step_, HumanCount(done), unit);
  if (seconds > 0) {
    line += fmt::format(", {} {}/s", HumanCount(done / seconds), unit == "records" ? "rec" : unit);
  }
  // A total that turns out too small (an estimate) gives no percentage, never "109227%".
  if (fraction >= 0 && fraction <= 1) line += fmt::format(", {:.0f}%", fraction * 100);
  line += '\n';
  std::fputs(line.c_str(), out_);
  std::fflush(out_);
}

ProgressFn ProgressReporter::AsProgressFn() {
  return [this](const Progress& p) { Report(p); };
}

}  // namespace tools
