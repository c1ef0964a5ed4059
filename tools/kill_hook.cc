#include "tools/kill_hook.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace tools {

std::function<void(std::string_view)> KillHookFromEnvironment() {
  const char* at = std::getenv("WEBDB_KILL_AT");
  if (at == nullptr || *at == '\0') return {};
  return [target = std::string(at)](std::string_view step) {
    if (step.starts_with(target)) ::kill(::getpid(), SIGKILL);
  };
}

}  // namespace tools
