// Replicas on real hosts (docs/DISTRIBUTED.md, "Replicas", "Takeover", "Losing
// a machine for good"): k = 3 writers with replicas = 2 on three simulated
// hosts with their own sshd (test/util/test_hosts.h), reaching each other over
// SFTP. A host is lost for good in the middle of a round (its writer dies, its
// sshd is stopped, its root deleted); its writer is rerun on its replica holder
// with --machine, the others skip the lost host, and that round and every later
// one equal the single-machine db fed the same calls.
//
// Call files live in the hosts' shared directory, so that the takeover reads
// them on another host after the lost one's root is gone. Every wait is on a
// process's exit.
#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

#include "test/util/call_writer.h"
#include "test/util/dist_cluster.h"
#include "test/util/hosts_config.h"
#include "test/util/model_db.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/test_hosts.h"

namespace distwriter {
namespace {

namespace fs = std::filesystem;
using testutil::ProcessResult;
using testutil::Session;
using testutil::ShellQuote;
using testutil::Subprocess;
using testutil::TestHosts;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
// The build that kills itself at the step WEBDB_KILL_AT names (test/killable/).
const std::string kKillable = PROJECT_BINARY_DIR "/test/killable/distwriter";
const std::string kScript = PROJECT_SOURCE_DIR "/scripts/testhosts.sh";
constexpr int kWriters = 3;
// Generous: a round of this size takes well under a second on an idle machine.
constexpr auto kDeadline = std::chrono::seconds(180);

std::vector<Session> MakeSessions(uint64_t seed, size_t n) {
  testutil::GenOptions o;
  o.universe_urls = 60;
  o.max_calls = 150;
  o.hostile_bytes = false;
  testutil::SessionGenerator gen(seed, o);
  std::vector<Session> sessions;
  while (sessions.size() < n) {
    Session s = gen.Next();
    if (s.size() >= 20) sessions.push_back(std::move(s));
  }
  return sessions;
}

// Three hosts, an SFTP config with replicas = 2 and the db created.
class ReplicatedHosts {
 public:
  explicit ReplicatedHosts(const std::string &extra_config = "") : hosts_(kWriters) {
    config_ = hosts_.dir() + "/cluster.conf";
    // A short retry window: a lost host is given up in seconds, not half a
    // minute.
    testutil::WriteTextFile(config_,
                            "replicas = 2\nretry_window_ms = 3000\n" + extra_config +
                                testutil::HostsConfigText(hosts_, testutil::HostsTransport::kSftp));
    const ProcessResult created = testutil::RunProcess({kDistwriter, "create", "--config", config_},
                                                       {}, logs_.File("create"));
    INFO(created.Describe());
    REQUIRE(created.exit_code == 0);
  }

  TestHosts &hosts() { return hosts_; }
  const std::string &config() const { return config_; }
  const testutil::TempDir &logs() const { return logs_; }
  const std::string &name(int i) const { return hosts_.host(i).name; }

  // Writes writer i's slice of round r into the shared directory.
  std::string CallFile(int writer, int round, const Session &slice) {
    const std::string path = hosts_.shared_dir() + "/calls-r" + std::to_string(round) + "-w" +
                             std::to_string(writer) + ".jsonl";
    testutil::WriteCallFile(path, slice);
    return path;
  }

  // Starts writer i on host h (as machine `name(h)` when h is not its own host)
  // with `binary` and the environment assignments `env` ("K=V ...", may be
  // empty).
  std::unique_ptr<Subprocess> Start(int writer, int host, const std::string &calls,
                                    const std::string &binary = kDistwriter,
                                    const std::string &env = "") {
    std::string cmd = "exec env " + env + " " + ShellQuote(binary) + " run --config " +
                      ShellQuote(config_) + " --writer " + std::to_string(writer) + " --quiet";
    if (host != writer) cmd += " --machine " + name(host);
    cmd += " " + ShellQuote(calls);
    return Subprocess::Start(
        {kScript, "exec", hosts_.dir(), name(host), "sh", "-c", cmd}, {},
        logs_.File("w" + std::to_string(writer) + "-" + std::to_string(++runs_)));
  }

  // Runs a whole round, writer i on host_of[i]; each must exit 0.
  void RunRound(const std::vector<Session> &slices, int round, const std::vector<int> &host_of) {
    std::vector<std::unique_ptr<Subprocess>> writers;
    for (int i = 0; i < kWriters; ++i)
      writers.push_back(Start(i, host_of[i], CallFile(i, round, slices[i])));
    WaitAllOk(writers);
  }

  // Waits for every writer (null ones skipped) and requires exit 0 of each.
  static void WaitAllOk(std::vector<std::unique_ptr<Subprocess>> &writers) {
    std::vector<ProcessResult> results;
    std::string all;
    for (size_t i = 0; i < writers.size(); ++i) {
      results.push_back(writers[i] ? writers[i]->Wait(kDeadline) : ProcessResult{});
      if (writers[i])
        all += "writer " + std::to_string(i) + ": " + results.back().Describe() + "\n";
    }
    INFO(all);
    for (size_t i = 0; i < writers.size(); ++i) {
      if (writers[i]) REQUIRE(results[i].exit_code == 0);
    }
  }

  // Loses host h for good: its sshd stopped (open sessions broken), its root
  // deleted.
  void Lose(int h) {
    hosts_.StopSshd(h);
    fs::remove_all(hosts_.host(h).root);
  }

 private:
  TestHosts hosts_;
  testutil::TempDir logs_;
  std::string config_;
  int runs_ = 0;
};

void CheckMatchesSingle(testutil::ModelDb &single, const std::string &config, const Session &s) {
  REQUIRE(single.Apply(s).ok());
  auto expected = single.Dump();
  REQUIRE(expected.has_value());
  const testutil::DbDump actual = testutil::DumpDistDb(config);
  REQUIRE(testutil::CompareDumps(*expected, actual) == "");
  CHECK(actual.num_pages > 0);
}

TEST_CASE(
    "R = 2 on three hosts: a host lost mid-round, its writer rerun on "
    "its replica holder",
    "[ssh][replicas][takeover]") {
  ReplicatedHosts cluster;
  const std::vector<Session> sessions = MakeSessions(501, 4);
  std::mt19937_64 cuts(501);
  testutil::ModelDb single;
  cluster.RunRound(testutil::SplitSession(sessions[0], kWriters, cuts), 0, {0, 1, 2});
  CheckMatchesSingle(single, cluster.config(), sessions[0]);

  // Round 2: writer 1 dies in stage 3, then its host is lost; writer 1 runs
  // again on h2, which holds w1's replica, while writers 0 and 2 still wait for
  // it.
  const auto slices = testutil::SplitSession(sessions[1], kWriters, cuts);
  std::vector<std::unique_ptr<Subprocess>> writers(kWriters);
  for (int i : {0, 2}) writers[i] = cluster.Start(i, i, cluster.CallFile(i, 1, slices[i]));
  const std::string calls = cluster.CallFile(1, 1, slices[1]);
  const ProcessResult killed =
      cluster.Start(1, 1, calls, kKillable, "WEBDB_KILL_AT='stage 3'")->Wait(kDeadline);
  INFO(killed.Describe());
  REQUIRE(killed.exit_code != 0);
  cluster.Lose(1);
  writers[1] = cluster.Start(1, 2, calls);
  ReplicatedHosts::WaitAllOk(writers);
  CheckMatchesSingle(single, cluster.config(), sessions[1]);

  // Later rounds run the same way until the host is replaced.
  for (int r = 2; r < 4; ++r) {
    CAPTURE(r);
    cluster.RunRound(testutil::SplitSession(sessions[r], kWriters, cuts), r, {0, 2, 2});
    CheckMatchesSingle(single, cluster.config(), sessions[r]);
  }
}

}  // namespace
}  // namespace distwriter
