#include "tools/step_clock.h"

#include <fmt/format.h>

namespace tools {

StepClock::StepClock(std::string first, NowFn now) : now_(std::move(now)) {
  steps_.push_back({std::move(first), now_()});
}

void StepClock::Step(std::string_view name) {
  constexpr std::string_view kStage = "stage ";
  if (name.starts_with(kStage)) {
    steps_.push_back({std::string(name.substr(0, name.find(' ', kStage.size()))), now_()});
  } else if (name == "publish") {
    steps_.push_back({std::string(name), now_()});
  }
}

std::string StepClock::Summary() const {
  const Clock::time_point end = now_();
  std::string out;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Clock::time_point until = i + 1 < steps_.size() ? steps_[i + 1].at : end;
    const double seconds = std::chrono::duration<double>(until - steps_[i].at).count();
    out += fmt::format("{}{} {:.3f}", i > 0 ? ", " : "", steps_[i].name, seconds);
  }
  return out;
}

}  // namespace tools
