// The kill points of the crash tests' builds of the tools (tools/step_observer.h): when
// the environment variable WEBDB_KILL_AT names a step ("stage 3", "publish", "commit
// send 2", "done", ...), the process kills itself with SIGKILL as that step begins, so
// tests can crash a writer exactly at every step boundary. A step matches when its name
// is WEBDB_KILL_AT or starts with it and a space ("stage 3" is "stage 3 linksByMD5";
// "commit send 1" is not "commit send 10"). With WEBDB_KILL_WRITER=I as well, only
// distributed writer I kills itself (the others of a `distwriter launch` inherit the same
// environment). Unset, nothing happens.
//
// WEBDB_HOLD_AT=STEP with WEBDB_HOLD_UNTIL=PATH holds the process as that step begins
// until a file PATH exists, so that a test can let a writer's peers run ahead of it to
// an outcome of its choosing (not a delay's), then let it go on. WEBDB_KILL_WRITER picks
// the writer here too.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "tools/step_observer.h"

namespace tools {
namespace {

bool Matches(std::string_view step, const std::string& target) {
  return step == target || (step.starts_with(target) && step[target.size()] == ' ');
}

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

std::function<void(std::string_view)> StepObserver(int writer) {
  const std::string kill_at = Env("WEBDB_KILL_AT");
  const std::string hold_at = Env("WEBDB_HOLD_AT");
  const std::string until = Env("WEBDB_HOLD_UNTIL");
  if (kill_at.empty() && (hold_at.empty() || until.empty())) return {};
  const std::string only = Env("WEBDB_KILL_WRITER");
  if (!only.empty() && only != std::to_string(writer)) return {};
  return [kill_at, hold_at, until](std::string_view step) {
    if (!kill_at.empty() && Matches(step, kill_at)) ::kill(::getpid(), SIGKILL);
    if (hold_at.empty() || until.empty() || !Matches(step, hold_at)) return;
    while (::access(until.c_str(), F_OK) != 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
}

}  // namespace tools
