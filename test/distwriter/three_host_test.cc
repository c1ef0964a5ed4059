// Replicas on real hosts (docs/DISTRIBUTED.md, "Replicas", "Leases and fencing",
// "Takeover", "Losing a machine for good"): k = 3 writers with replicas = 2 on three
// simulated hosts with their own sshd (test/util/test_hosts.h), reaching each other over
// SFTP.
//   - A host is lost for good in the middle of a round (its writer dies, its sshd is
//     stopped, its root deleted); its writer is rerun on its replica holder with
//     --machine, the others skip the lost host, and that round and every later one
//     equal the single-machine db fed the same calls.
//   - A writer stopped (SIGSTOP) past its lease is taken over from another host; resumed,
//     it changes nothing and exits 4.
//   - A lease of another host that ran out is taken by a requeued writer without unlock.
//   - A lost host comes back with an empty root; `distwriter rereplicate` restores its
//     copies, verify is clean, and every writer runs on its own machine again.
//
// Call files live in the hosts' shared directory, so that a takeover reads them on
// another host. Waits are on a process's exit or a lease record, never on a sleep.
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <random>
#include <thread>

#include "nutchfs/env.h"
#include "nutchfs/lease.h"
#include "nutchfs/lock_owner.h"
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
const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";
const std::string kScript = PROJECT_SOURCE_DIR "/scripts/testhosts.sh";
constexpr int kWriters = 3;
// Generous: a round of this size takes well under a second on an idle machine.
constexpr auto kDeadline = std::chrono::seconds(180);

std::vector<Session> MakeSessions(uint64_t seed, size_t n) {
  return testutil::RoundSessions(seed, n, 60, 150, 20);
}

// Three hosts, an SFTP config with replicas = 2 and the db created.
class ReplicatedHosts {
 public:
  explicit ReplicatedHosts(const std::string& extra_config = "") : hosts_(kWriters) {
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

  TestHosts& hosts() { return hosts_; }
  const std::string& config() const { return config_; }
  const testutil::TempDir& logs() const { return logs_; }
  const std::string& name(int i) const { return hosts_.host(i).name; }

  // Writes writer i's slice of round r into the shared directory.
  std::string CallFile(int writer, int round, const Session& slice) {
    const std::string path = hosts_.shared_dir() + "/calls-r" + std::to_string(round) + "-w" +
                             std::to_string(writer) + ".jsonl";
    testutil::WriteCallFile(path, slice);
    return path;
  }

  // Starts writer i on host h (as machine `name(h)` when h is not its own host) with
  // `binary` and the environment assignments `env` ("K=V ...", may be empty). With
  // `own_hostname` it runs in a UTS namespace named after h, so that its lease record says
  // it is of another host than a writer run elsewhere (the simulated hosts share the test
  // machine's host name otherwise).
  std::unique_ptr<Subprocess> Start(int writer, int host, const std::string& calls,
                                    const std::string& binary = kDistwriter,
                                    const std::string& env = "", bool own_hostname = false) {
    std::string cmd = "exec env " + env + " " + ShellQuote(binary) + " run --config " +
                      ShellQuote(config_) + " --writer " + std::to_string(writer) + " --quiet";
    if (host != writer) cmd += " --machine " + name(host);
    cmd += " " + ShellQuote(calls);
    if (own_hostname)
      cmd = "exec unshare -u sh -c " + ShellQuote("hostname " + name(host) + " && " + cmd);
    return Subprocess::Start(
        {kScript, "exec", hosts_.dir(), name(host), "sh", "-c", cmd}, {},
        logs_.File("w" + std::to_string(writer) + "-" + std::to_string(++runs_)));
  }

  // The lease record of writer i at host h ("" fields when there is none).
  nutchfs::LockOwner LeaseAt(int writer, int host) {
    auto env = nutchfs::NewLocalEnv();
    auto record = nutchfs::ReadLeaseRecord(*env, LockDir(writer, host), "LOCK");
    INFO(LockDir(writer, host));
    REQUIRE(record);
    return record->value_or(nutchfs::LockOwner{});
  }
  std::string LockDir(int writer, int host) const {
    return hosts_.host(host).root + "/crawl/w" + std::to_string(writer) + "/.locks";
  }

  // Runs a whole round, writer i on host_of[i]; each must exit 0.
  void RunRound(const std::vector<Session>& slices, int round, const std::vector<int>& host_of) {
    std::vector<std::unique_ptr<Subprocess>> writers;
    for (int i = 0; i < kWriters; ++i)
      writers.push_back(Start(i, host_of[i], CallFile(i, round, slices[i])));
    WaitAllOk(writers);
  }

  // Waits for every writer (null ones skipped), requires exit 0 of each, returns results.
  static std::vector<ProcessResult> WaitAllOk(std::vector<std::unique_ptr<Subprocess>>& writers) {
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
    return results;
  }

  // Loses host h for good: its sshd stopped (open sessions broken), its root
  // deleted.
  void Lose(int h) {
    hosts_.StopSshd(h);
    fs::remove_all(hosts_.host(h).root);
  }
  // Brings host h back as a replaced machine: an empty root at the same location, its
  // sshd started again.
  void Replace(int h) {
    fs::create_directories(hosts_.host(h).root);
    hosts_.StartSshd(h);
  }

  // `distwriter rereplicate` from the test process, which reaches every host over SFTP.
  ProcessResult Rereplicate() {
    return testutil::RunProcess({kDistwriter, "rereplicate", "--config", config_}, {},
                                logs_.File("rereplicate-" + std::to_string(++runs_)));
  }

 private:
  TestHosts hosts_;
  testutil::TempDir logs_;
  std::string config_;
  int runs_ = 0;
};

void CheckMatchesSingle(testutil::ModelDb& single, const std::string& config, const Session& s) {
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

TEST_CASE("R = 2 on three hosts: a lost host replaced by an empty one gets its copies back",
          "[ssh][replicas][rereplicate]") {
  ReplicatedHosts cluster;
  const std::vector<Session> sessions = MakeSessions(503, 3);
  std::mt19937_64 cuts(503);
  testutil::ModelDb single;
  cluster.RunRound(testutil::SplitSession(sessions[0], kWriters, cuts), 0, {0, 1, 2});
  CheckMatchesSingle(single, cluster.config(), sessions[0]);

  // Host 1 lost for good; a round with writer 1 on h2, its replica holder.
  cluster.Lose(1);
  cluster.RunRound(testutil::SplitSession(sessions[1], kWriters, cuts), 1, {0, 2, 2});
  CheckMatchesSingle(single, cluster.config(), sessions[1]);

  // Nothing can be restored while h1 cannot be reached: the error names it and its host.
  const ProcessResult down = cluster.Rereplicate();
  INFO(down.Describe());
  CHECK(down.exit_code == 4);
  CHECK_THAT(down.err, Catch::Contains("machine " + cluster.name(1)) &&
                           Catch::Contains(cluster.hosts().host(1).address));

  // h1 comes back with an empty root: rereplicate copies w0's and w1's sections and the
  // meta group's files there, and the round it publishes names h1 again.
  cluster.Replace(1);
  const ProcessResult missing =
      testutil::RunProcess({kWebdb, "verify", "--config", cluster.config()}, {},
                           cluster.logs().File("verify-missing"));
  CHECK(missing.exit_code != 0);
  CHECK_THAT(missing.out, Catch::Contains("missing replica: machine " + cluster.name(1)));
  const ProcessResult restored = cluster.Rereplicate();
  INFO(restored.Describe());
  REQUIRE(restored.exit_code == 0);
  CHECK_THAT(restored.out, Catch::Contains("names the restored holders"));
  const ProcessResult verify =
      testutil::RunProcess({kWebdb, "verify", "--config", cluster.config()}, {},
                           cluster.logs().File("verify"));
  INFO(verify.Describe());
  CHECK(verify.exit_code == 0);
  const ProcessResult stats =
      testutil::RunProcess({kWebdb, "stats", "--config", cluster.config(), "--quick"}, {},
                           cluster.logs().File("stats"));
  INFO(stats.Describe());
  CHECK(stats.exit_code == 0);
  CHECK_THAT(stats.out,
             Catch::Contains("\"sections\":[{\"writer\":0,\"machines\":[\"h0\",\"h1\"]},"
                             "{\"writer\":1,\"machines\":[\"h1\",\"h2\"]},"
                             "{\"writer\":2,\"machines\":[\"h2\",\"h0\"]}]"));

  // Every writer on its own machine again.
  cluster.RunRound(testutil::SplitSession(sessions[2], kWriters, cuts), 2, {0, 1, 2});
  CheckMatchesSingle(single, cluster.config(), sessions[2]);
}

// Waits (on the lease record, up to a generous deadline) until writer i holds a lease at
// host h of a higher epoch than `after`, and returns its record.
nutchfs::LockOwner WaitForLease(ReplicatedHosts& cluster, int writer, int host, uint64_t after) {
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  nutchfs::LockOwner held;
  while (std::chrono::steady_clock::now() < deadline) {
    held = cluster.LeaseAt(writer, host);
    if (held.epoch > after && !held.released) return held;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL("writer " << writer << " took no lease after epoch " << after << " at host " << host);
  return held;
}

TEST_CASE("R = 2 on three hosts: a paused writer taken over changes nothing once resumed",
          "[ssh][replicas][lease]") {
  // A lease long enough for the takeover to start and watch it run out before the peers'
  // two leases are up, even on a loaded machine.
  ReplicatedHosts cluster("lock_lease_ms = 6000\n");
  const std::vector<Session> sessions = MakeSessions(502, 2);
  std::mt19937_64 cuts(502);
  testutil::ModelDb single;
  cluster.RunRound(testutil::SplitSession(sessions[0], kWriters, cuts), 0, {0, 1, 2});
  CheckMatchesSingle(single, cluster.config(), sessions[0]);
  const uint64_t before = cluster.LeaseAt(1, 1).epoch;

  // Round 2: writer 1 on h1 is stopped (SIGSTOP) once it holds its lease; writer 1 is run
  // again on h2, which sees the lease of another host run out and takes it over.
  const auto slices = testutil::SplitSession(sessions[1], kWriters, cuts);
  std::vector<std::unique_ptr<Subprocess>> writers(kWriters);
  for (int i : {0, 2}) writers[i] = cluster.Start(i, i, cluster.CallFile(i, 1, slices[i]));
  const std::string calls = cluster.CallFile(1, 1, slices[1]);
  auto paused = cluster.Start(1, 1, calls, kDistwriter, "", true);
  const nutchfs::LockOwner held = WaitForLease(cluster, 1, 1, before);
  CHECK(held.host == cluster.name(1));
  REQUIRE(::kill(static_cast<pid_t>(held.pid), SIGSTOP) == 0);
  writers[1] = cluster.Start(1, 2, calls, kDistwriter, "", true);
  ReplicatedHosts::WaitAllOk(writers);
  CheckMatchesSingle(single, cluster.config(), sessions[1]);
  const testutil::DbDump after_takeover = testutil::DumpDistDb(cluster.config());

  // Resumed, the old run finds its lease gone: it changes nothing and exits 4.
  REQUIRE(::kill(static_cast<pid_t>(held.pid), SIGCONT) == 0);
  const ProcessResult resumed = paused->Wait(kDeadline);
  INFO(resumed.Describe());
  CHECK(resumed.exit_code == 4);
  CHECK_THAT(resumed.err,
             Catch::Contains("lost its lease") && Catch::Contains("this run changes nothing more"));
  CHECK(testutil::CompareDumps(after_takeover, testutil::DumpDistDb(cluster.config())) == "");
  const ProcessResult verified = testutil::RunProcess(
      {kWebdb, "verify", "-q", "--config", cluster.config()}, {}, cluster.logs().File("verify"));
  INFO(verified.Describe());
  CHECK(verified.exit_code == 0);
  CHECK(verified.out.empty());
}

TEST_CASE("R = 2 on three hosts: a lease of another host that ran out is taken without unlock",
          "[ssh][replicas][lease]") {
  ReplicatedHosts cluster("lock_lease_ms = 3000\n");
  const std::vector<Session> sessions = MakeSessions(503, 2);
  std::mt19937_64 cuts(503);
  testutil::ModelDb single;
  cluster.RunRound(testutil::SplitSession(sessions[0], kWriters, cuts), 0, {0, 1, 2});
  CheckMatchesSingle(single, cluster.config(), sessions[0]);

  // Writer 1 held its lease on another host and died there, unreleased: its record is on
  // both machines of w1, and nobody renews it.
  nutchfs::LockOwner dead = cluster.LeaseAt(1, 1);
  dead.epoch += 1;
  dead.host = "lost-host";
  dead.boot_id = "another-boot";
  dead.pid = 4242;
  dead.released = false;
  for (int h : {1, 2}) {
    testutil::WriteTextFile(cluster.LockDir(1, h) + "/LOCK." + std::to_string(dead.epoch),
                            nutchfs::EncodeLockOwner(dead));
  }
  // The requeued writer 1 waits a lease, takes it over and the round ends; no unlock.
  const auto slices = testutil::SplitSession(sessions[1], kWriters, cuts);
  std::vector<std::unique_ptr<Subprocess>> writers(kWriters);
  for (int i = 0; i < kWriters; ++i)
    writers[i] = cluster.Start(i, i, cluster.CallFile(i, 1, slices[i]));
  const std::vector<ProcessResult> results = ReplicatedHosts::WaitAllOk(writers);
  CHECK_THAT(results[1].err, Catch::Contains("lost-host") && Catch::Contains("taking it over"));
  CheckMatchesSingle(single, cluster.config(), sessions[1]);
  const nutchfs::LockOwner now = cluster.LeaseAt(1, 1);
  CHECK(now.epoch == dead.epoch + 1);
  CHECK(now.released);
}

}  // namespace
}  // namespace distwriter
