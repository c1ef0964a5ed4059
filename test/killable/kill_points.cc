// The kill points of the crash tests' builds of the tools (tools/step_observer.h): when
// the environment variable WEBDB_KILL_AT names a step ("stage 3", "publish", "commit
// send 2", "done", ...), the process kills itself with SIGKILL as that step begins, so
// tests can crash a writer exactly at every step boundary. A step matches when its name
// is WEBDB_KILL_AT or starts with it and a space ("stage 3" is "stage 3 linksByMD5";
// "commit send 1" is not "commit send 10"). With WEBDB_KILL_WRITER=I as well, only
// distributed writer I kills itself (the others of a `distwriter launch` inherit the same
// environment). Unset, nothing happens.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tools/step_observer.h"

namespace tools {

std::function<void(std::string_view)> StepObserver(int writer) {
  const char* at = std::getenv("WEBDB_KILL_AT");
  if (at == nullptr || *at == '\0') return {};
  const char* only = std::getenv("WEBDB_KILL_WRITER");
  if (only != nullptr && *only != '\0' && std::string(only) != std::to_string(writer)) return {};
  return [target = std::string(at)](std::string_view step) {
    if (step == target || (step.starts_with(target) && step[target.size()] == ' ')) {
      ::kill(::getpid(), SIGKILL);
    }
  };
}

}  // namespace tools
