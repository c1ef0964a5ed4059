// StepClock: how long each step of an apply took, for the summary `webdb apply` ends with:
//   webdb: seconds by step: calls 0.041, stage 1 0.017, ..., stage 5 0.046, publish 0.010
// The first step (reading and logging the calls) starts with the clock; the writer
// announces the others through its before_step hook (webdb/db/writer.h): "stage N <table>"
// begins step "stage N", "publish" begins "publish", and the steps after it
// ("current", "collect") count to it. Each step lasts until the next one begins, the
// last until the summary is taken.
//
// Not thread-safe: the writer calls its hooks from the thread that closes it.
#ifndef TOOLS_STEP_CLOCK_H_
#define TOOLS_STEP_CLOCK_H_

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tools {

class StepClock {
 public:
  using Clock = std::chrono::steady_clock;
  using NowFn = std::function<Clock::time_point()>;

  // Starts step `first` now. now tells the time (a test passes its own clock).
  explicit StepClock(std::string first, NowFn now = Clock::now);

  // A step the writer announced (its before_step name) begins, if it is one of those
  // above.
  void Step(std::string_view name);

  // "calls 0.041, stage 1 0.017, ...": every step begun, in order, with its seconds.
  std::string Summary() const;

 private:
  struct Begun {
    std::string name;
    Clock::time_point at;
  };

  NowFn now_;
  std::vector<Begun> steps_;
};

}  // namespace tools

#endif  // TOOLS_STEP_CLOCK_H_
