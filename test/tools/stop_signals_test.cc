// StopSignals: SIGTERM, SIGINT and SIGHUP are taken by its thread instead of ending the
// process; and a `distwriter run` told to stop so, as `launch` stops its writers, fails
// its round cleanly: no LOCK, no work area, no stage 0 file left behind (issue 36, 19).
#include "tools/stop_signals.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "test/util/dist_cluster.h"
#include "test/util/session.h"

namespace tools {
namespace {

// In a child process (this one may run threads that do not block the signals): the
// signal sent to the process, then whether StopSignals took it.
int TakenInChild(int sig) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    StopSignals stop;
    ::kill(::getpid(), sig);
    // The signal thread takes it as soon as it runs: wait for it, however long.
    while (stop.signal().load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ::_exit(stop.signal().load() == sig ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_CASE("stop signals are taken, not deadly") {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    CAPTURE(sig);
    CHECK(TakenInChild(sig) == 0);
  }
}

TEST_CASE("a distwriter writer stopped with SIGTERM leaves no LOCK, work area or stage 0 file") {
  testutil::DistCluster cluster(PROJECT_BINARY_DIR "/tools/distwriter", 2, 600000);
  cluster.Create();
  const testutil::Session calls = {
      testutil::AddPageCall(webdb::Page::WithDefaults("http://a.example/"))};
  // Writer 0 alone: it sends its stage 0 files and waits for writer 1's.
  auto writer = cluster.StartWriter(0, cluster.WriteCallFile(0, calls));
  const std::string sent = cluster.GroupDir(1) + "/rounds/2/s0/from-0.edits";
  while (!std::filesystem::exists(sent)) {
    REQUIRE_FALSE(writer->Finished());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(::kill(writer->pid(), SIGTERM) == 0);
  testutil::ProcessResult r = writer->Wait();
  INFO(r.Describe());
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.err, Catch::Contains("writer 0: round 2: stopped by signal 15 (SIGTERM)"));
  CHECK_FALSE(std::filesystem::exists(cluster.GroupDir(0) + "/LOCK"));
  CHECK_FALSE(std::filesystem::exists(sent));
  const std::string work = cluster.GroupDir(0) + "/work";
  CHECK((!std::filesystem::exists(work) || std::filesystem::is_empty(work)));
  // It told its peer, which would otherwise wait for it.
  CHECK(std::filesystem::exists(cluster.GroupDir(1) + "/rounds/2/failed/from-0"));
  // The round runs as soon as both writers do.
  cluster.RunRound({calls, {}});
  CHECK(cluster.Committed().version == 2);
}

}  // namespace
}  // namespace tools
