// The crash tests' kill points (test/killable/kill_points.cc): which steps kill, and for
// which writer.
#include "tools/step_observer.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"

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

TEST_CASE("the kill points kill at the named step, for the named writer only") {
  ::unsetenv("WEBDB_KILL_WRITER");
  ::unsetenv("WEBDB_KILL_AT");
  CHECK_FALSE(StepObserver());
  ::setenv("WEBDB_KILL_AT", "commit send 1", 1);
  auto hook = StepObserver(1);
  REQUIRE(hook);
  CHECK(SignalAfter(hook, {"stage 0", "commit", "commit send 10", "commit send 2"}) == 0);
  CHECK(SignalAfter(hook, {"commit send 1"}) == SIGKILL);
  ::setenv("WEBDB_KILL_AT", "stage 3", 1);
  CHECK(SignalAfter(StepObserver(), {"stage 3 linksByMD5"}) == SIGKILL);
  ::setenv("WEBDB_KILL_WRITER", "2", 1);
  CHECK_FALSE(StepObserver(1));
  CHECK_FALSE(StepObserver());
  CHECK(SignalAfter(StepObserver(2), {"stage 3 linksByMD5"}) == SIGKILL);
  ::unsetenv("WEBDB_KILL_WRITER");
  ::unsetenv("WEBDB_KILL_AT");
}

TEST_CASE("the kill points hold at WEBDB_HOLD_AT, for the named writer, until the file exists") {
  testutil::TempDir dir;
  const std::string release = dir.File("release");
  const std::string log = dir.File("steps");
  ::unsetenv("WEBDB_KILL_AT");
  ::setenv("WEBDB_HOLD_AT", "commit send 2", 1);
  CHECK_FALSE(StepObserver(1));  // held until no file named
  ::setenv("WEBDB_HOLD_UNTIL", release.c_str(), 1);
  ::setenv("WEBDB_KILL_WRITER", "1", 1);
  CHECK_FALSE(StepObserver(2));
  auto hook = StepObserver(1);
  REQUIRE(hook);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    for (const char* step : {"commit send 1", "commit send 20", "commit send 2", "done"}) {
      hook(step);
      std::ofstream(log, std::ios::app) << step << "\n";
    }
    ::_exit(0);
  }
  // Past the steps before it, the child stays at "commit send 2" until the file exists.
  const std::string before = "commit send 1\ncommit send 20\n";
  while (testutil::ReadFileOrEmpty(log) != before) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, WNOHANG) == 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  int status = 0;
  CHECK(::waitpid(pid, &status, WNOHANG) == 0);
  CHECK(testutil::ReadFileOrEmpty(log) == before);
  std::ofstream(release).close();
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(testutil::ReadFileOrEmpty(log) == before + "commit send 2\ndone\n");
  ::unsetenv("WEBDB_KILL_WRITER");
  ::unsetenv("WEBDB_HOLD_AT");
  ::unsetenv("WEBDB_HOLD_UNTIL");
}

}  // namespace
// A session of one page, applied by the tool at `webdb` with WEBDB_KILL_AT=publish.
testutil::ProcessResult ApplyKilledAtPublish(const std::string& webdb,
                                             const testutil::TempDir& dir) {
  const std::string db = dir.File("db-" + std::to_string(std::hash<std::string>{}(webdb)));
  REQUIRE(testutil::RunProcess({webdb, "create", db}, {}, db + "-create").exit_code == 0);
  std::ofstream(dir.File("calls")) << R"({"op":"addPage","page":{"url":"http://a.example/"}})"
                                   << "\n";
  return testutil::RunProcess({webdb, "apply", "-q", db, dir.File("calls")},
                              {"WEBDB_KILL_AT=publish"}, db + "-apply");
}

TEST_CASE("the shipped tools carry no kill points, the crash tests' builds do") {
  testutil::TempDir dir;
  for (const char* tool : {"webdb", "distwriter", "nutchfs"}) {
    const std::string shipped = std::string(PROJECT_BINARY_DIR "/tools/") + tool;
    INFO(shipped);
    const std::string bytes = testutil::ReadFileOrEmpty(shipped);
    REQUIRE(bytes.size() > 0);
    CHECK(bytes.find("WEBDB_KILL_AT") == std::string::npos);
    CHECK(bytes.find("WEBDB_HOLD_AT") == std::string::npos);
  }
  CHECK(ApplyKilledAtPublish(PROJECT_BINARY_DIR "/tools/webdb", dir).exit_code == 0);
  CHECK(ApplyKilledAtPublish(PROJECT_BINARY_DIR "/test/killable/webdb", dir).KilledBy(SIGKILL));
}

}  // namespace tools
