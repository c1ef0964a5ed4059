// StepClock: how long each step of an apply or a rank took, for the summary they end with:
//   webdb: seconds by step: calls 0.041, stage 1 0.017, ..., stage 5 0.046, publish 0.010
//   webdb: seconds by step: open 0.002, graph 0.310, links 0.090, edges 0.120, iterations 0.400, tables 0.150, publish 0.010
// The first step (reading and logging the calls; opening the db) starts with the clock;
// the writer or rank announces the others through its before_step hook
// (webdb/db/writer.h, webdb/rank/rank_engine.h): "stage N <table>" begins step "stage N",
// "rank graph" "graph", "rank links" "links", "rank edges" "edges", "rank iteration <i> ..."
// "iterations" (all of them one step), "rank publish" "tables", "publish" "publish"; the
// steps after publish ("current", "collect") count to it. Each step lasts until the next
// one begins, the last until the summary is taken.
//
// Not thread-safe: the writer calls its hooks from the thread that closes it.
#ifndef TOOLS_STEP_CLOCK_H_
#define TOOLS_STEP_CLOCK_H_

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
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

  // Every step begun, in order, with its seconds.
  std::vector<std::pair<std::string, double>> Seconds() const;
  // "calls 0.041, stage 1 0.017, ...": the same as text.
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
