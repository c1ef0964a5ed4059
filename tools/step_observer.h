// StepObserver: what a process of the tools does as each step of a writer begins
// (StageHooks::before_step for `webdb apply`, distwriter::RunOptions::before_step for a
// distributed writer, the steps of rollback and keep).
//
// The definition is chosen when an executable is linked, so that no shipped binary
// carries a test hook: the shipped tools link tools/step_observer_main.cc, which observes
// nothing; the builds of the same tools that the crash tests run (test/killable/) link
// test/killable/kill_points.cc, which kills the process at the step that WEBDB_KILL_AT
// names. Thread-safety: call from one thread; the function returned is called by the
// thread running the steps.
#ifndef TOOLS_STEP_OBSERVER_H_
#define TOOLS_STEP_OBSERVER_H_

#include <functional>
#include <string_view>

namespace tools {

// The observer of the steps of distributed writer `writer` (-1: not a distributed
// writer); empty when nothing observes them.
std::function<void(std::string_view)> StepObserver(int writer = -1);

}  // namespace tools

#endif  // TOOLS_STEP_OBSERVER_H_
