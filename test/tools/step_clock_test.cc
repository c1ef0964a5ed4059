#include "tools/step_clock.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

namespace tools {
namespace {

// The writer's steps as announced after so many milliseconds of the step before.
struct Announced {
  int after_ms;
  std::string step;
};

// The summary of a clock started with "calls", given those steps and then the
// milliseconds the last one lasts, on a clock that moves only when told.
std::string SummaryOf(const std::vector<Announced>& steps, int last_ms) {
  StepClock::Clock::time_point now{};
  StepClock clock("calls", [&now] { return now; });
  for (const Announced& a : steps) {
    now += std::chrono::milliseconds(a.after_ms);
    clock.Step(a.step);
  }
  now += std::chrono::milliseconds(last_ms);
  return clock.Summary();
}

TEST_CASE("each step lasts until the next begins, the last until the summary") {
  CHECK(SummaryOf({{41, "stage 1 pagesByURL"}, {17, "stage 2 pagesByMD5"}, {1500, "publish"}},
                  10) == "calls 0.041, stage 1 0.017, stage 2 1.500, publish 0.010");
}

TEST_CASE("steps the clock does not know belong to the step before") {
  CHECK(SummaryOf({{20, "stage 5 linksByMD5 fixes"}, {10, "exchange"}}, 10) ==
        "calls 0.020, stage 5 0.020");
  CHECK(SummaryOf({{1, "publish"}, {3, "current"}, {2, "collect"}}, 5) ==
        "calls 0.001, publish 0.010");
}

TEST_CASE("a rank's steps: its iterations are one") {
  CHECK(SummaryOf({{2, "rank graph"},
                   {30, "rank links"},
                   {9, "rank edges"},
                   {12, "rank iteration 1 sums"},
                   {5, "rank iteration 1 scores"},
                   {6, "rank iteration 2 sums"},
                   {7, "rank publish"},
                   {20, "publish"},
                   {1, "collect"}},
                  3) ==
        "calls 0.002, graph 0.030, links 0.009, edges 0.012, iterations 0.018, "
        "tables 0.020, publish 0.004");
}

TEST_CASE("a session without stages is all calls") { CHECK(SummaryOf({}, 7) == "calls 0.007"); }

}  // namespace
}  // namespace tools
