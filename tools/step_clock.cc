#include "tools/step_clock.h"

#include <fmt/format.h>

namespace tools {

StepClock::StepClock(std::string first, NowFn now) : now_(std::move(now)) {
  steps_.push_back({std::move(first), now_()});
}

namespace {

// The step an announced name begins; empty for a name that begins none.
std::string StepOf(std::string_view name) {
  constexpr std::string_view kStage = "stage ";
  if (name.starts_with(kStage)) return std::string(name.substr(0, name.find(' ', kStage.size())));
  if (name.starts_with("rank iteration ")) return "iterations";
  if (name == "rank graph") return "graph";
  if (name == "rank links") return "links";
  if (name == "rank edges") return "edges";
  if (name == "rank publish") return "tables";
  if (name == "publish") return "publish";
  return "";
}

}  // namespace

void StepClock::Step(std::string_view name) {
  std::string step = StepOf(name);
  if (!step.empty() && step != steps_.back().name) steps_.push_back({std::move(step), now_()});
}

std::vector<std::pair<std::string, double>> StepClock::Seconds() const {
  const Clock::time_point end = now_();
  std::vector<std::pair<std::string, double>> out;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Clock::time_point until = i + 1 < steps_.size() ? steps_[i + 1].at : end;
    out.emplace_back(steps_[i].name,
                     std::chrono::duration<double>(until - steps_[i].at).count());
  }
  return out;
}

std::string StepClock::Summary() const {
  std::string out;
  for (const auto& [name, seconds] : Seconds()) {
    out += fmt::format("{}{} {:.3f}", out.empty() ? "" : ", ", name, seconds);
  }
  return out;
}

}  // namespace tools
