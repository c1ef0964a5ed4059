// The crash-test hook: which steps kill, and for which writer.
#include "tools/kill_hook.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace tools {
namespace {

// Calls the hook with each step in a child process; the signal that ended it (0 if it
// ran through all of them).
int SignalAfter(const std::function<void(std::string_view)>& hook,
                const std::vector<std::string>& steps) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    for (const std::string& step : steps) hook(step);
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

TEST_CASE("the kill hook kills at the named step, for the named writer only") {
  ::unsetenv("WEBDB_KILL_WRITER");
  ::unsetenv("WEBDB_KILL_AT");
  CHECK_FALSE(KillHookFromEnvironment());
  ::setenv("WEBDB_KILL_AT", "commit send 1", 1);
  auto hook = KillHookFromEnvironment(1);
  REQUIRE(hook);
  CHECK(SignalAfter(hook, {"stage 0", "commit", "commit send 10", "commit send 2"}) == 0);
  CHECK(SignalAfter(hook, {"commit send 1"}) == SIGKILL);
  ::setenv("WEBDB_KILL_AT", "stage 3", 1);
  CHECK(SignalAfter(KillHookFromEnvironment(), {"stage 3 linksByMD5"}) == SIGKILL);
  ::setenv("WEBDB_KILL_WRITER", "2", 1);
  CHECK_FALSE(KillHookFromEnvironment(1));
  CHECK_FALSE(KillHookFromEnvironment());
  CHECK(SignalAfter(KillHookFromEnvironment(2), {"stage 3 linksByMD5"}) == SIGKILL);
  ::unsetenv("WEBDB_KILL_WRITER");
  ::unsetenv("WEBDB_KILL_AT");
}

}  // namespace
}  // namespace tools
