#include "tools/step_clock.h"

#include <catch2/catch.hpp>
#include <chrono>

namespace tools {
namespace {

using std::chrono::milliseconds;

// A clock that moves only when told.
struct FakeClock {
  StepClock::Clock::time_point now{};
  StepClock::NowFn Fn() {
    return [this] { return now; };
  }
};

TEST_CASE("each step lasts until the next begins, the last until the summary") {
  FakeClock clock;
  StepClock steps("calls", clock.Fn());
  clock.now += milliseconds(41);
  steps.Step("stage 1 pagesByURL");
  clock.now += milliseconds(17);
  steps.Step("stage 2 pagesByMD5");
  clock.now += milliseconds(1500);
  steps.Step("publish");
  clock.now += milliseconds(3);
  steps.Step("current");  // counts to publish, as does "collect"
  clock.now += milliseconds(2);
  steps.Step("collect");
  clock.now += milliseconds(5);
  CHECK(steps.Summary() == "calls 0.041, stage 1 0.017, stage 2 1.500, publish 0.010");
}

TEST_CASE("steps the clock does not know belong to the step before") {
  FakeClock clock;
  StepClock steps("calls", clock.Fn());
  clock.now += milliseconds(20);
  steps.Step("stage 5 linksByMD5 fixes");
  clock.now += milliseconds(10);
  steps.Step("exchange");
  clock.now += milliseconds(10);
  CHECK(steps.Summary() == "calls 0.020, stage 5 0.020");
}

TEST_CASE("a session without stages is all calls") {
  FakeClock clock;
  StepClock steps("calls", clock.Fn());
  clock.now += milliseconds(7);
  CHECK(steps.Summary() == "calls 0.007");
}

}  // namespace
}  // namespace tools
