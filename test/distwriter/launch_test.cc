// `distwriter launch` when a writer fails: writer 2's slice ends in a bad call, so it
// exits 3 at once while writers 0 and 1 wait for it in stage 0. launch must stop those
// two (local children, or ssh writers on their own hosts, not just their ssh clients),
// report every writer, and retract the stage 0 files the stopped writers sent: a killed
// writer leaves them behind, and a corrected rerun (other inputs, so other digests)
// could read them and disagree with its peers on the round. The rerun must then commit
// at once and equal the single-machine writer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "test/util/call_writer.h"
#include "test/util/dist_cluster.h"
#include "test/util/hosts_config.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/test_hosts.h"

namespace distwriter {
namespace {

using testutil::ProcessResult;
using testutil::Session;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";

Session MakeSession(uint64_t seed) {
  testutil::GenOptions o;
  o.universe_urls = 60;
  o.hostile_bytes = false;
  testutil::SessionGenerator gen(seed, o);
  Session s;
  while (s.size() < 30) s = gen.Next();
  return s;
}

// Stage 0 files (rounds/<N>/s0/from-<j>.edits, not temporary ones) below dir.
std::vector<std::string> StageZeroFiles(const std::string& dir) {
  static const std::regex kStageZero(".*/rounds/[0-9]+/s0/from-[0-9]+\\.edits");
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (std::regex_match(e.path().string(), kStageZero)) found.push_back(e.path().string());
  }
  return found;
}

// Pids of the processes whose command line contains every one of parts.
std::vector<int> ProcessesWith(const std::vector<std::string>& parts) {
  std::vector<int> pids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = testutil::ReadFileOrEmpty(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (std::all_of(parts.begin(), parts.end(),
                    [&](const std::string& p) { return cmdline.find(p) != std::string::npos; })) {
      pids.push_back(std::stoi(name));
    }
  }
  return pids;
}

ProcessResult Launch(const std::string& config, const std::string& calls,
                     const std::string& log) {
  return testutil::Subprocess::Start({kDistwriter, "launch", "--config", config, "--quiet", calls},
                                     {}, log)
      ->Wait(std::chrono::seconds(60));
}

// The failed launch, then the corrected one; roots is where every machine's files are.
void FailThenRerun(const std::string& config, const std::vector<std::string>& machines,
                   const std::string& roots, const testutil::TempDir& dir) {
  const Session session = MakeSession(406);
  const std::string good = dir.File("good.jsonl");
  testutil::WriteCallFile(good, session);
  testutil::WriteTextFile(dir.File("bad.jsonl"),
                          testutil::ReadFileOrEmpty(good) + "{\"bad\":1}\n");

  const ProcessResult failed = Launch(config, dir.File("bad.jsonl"), dir.File("bad"));
  INFO("failed launch: " << failed.Describe());
  CHECK(failed.exit_code == 4);
  CHECK_THAT(failed.err, Catch::Contains("writer 2 (machine " + machines[2] + ") (exit 3)") &&
                             Catch::Contains("writer 0 (machine " + machines[0] + ") (stopped)") &&
                             Catch::Contains("writer 1 (machine " + machines[1] + ") (stopped)"));
  // Launch returns once every writer has exited, remote ones included.
  CHECK(ProcessesWith({kDistwriter, " run ", config}).empty());
  CHECK(StageZeroFiles(roots).empty());

  const ProcessResult rerun = Launch(config, good, dir.File("good"));
  INFO("rerun: " << rerun.Describe());
  REQUIRE(rerun.exit_code == 0);
  CHECK_THAT(rerun.out, Catch::Contains("version 2:"));
  testutil::CheckDistDbMatchesSingle(config, {session});
}

TEST_CASE("launch stops its local writers when one fails and retracts their stage 0 files") {
  testutil::DistCluster cluster(kDistwriter, 3, 30000);
  cluster.Create();
  FailThenRerun(cluster.config(), {"m0", "m1", "m2"}, cluster.dir().path(), cluster.dir());
}

TEST_CASE("launch stops its ssh writers on their hosts when one fails", "[ssh]") {
  testutil::TestHosts hosts(3);
  testutil::TempDir dir;
  const std::string config = testutil::WriteHostsConfig(hosts, testutil::HostsTransport::kSftp);
  const ProcessResult create = testutil::RunProcess(
      {kDistwriter, "create", "--config", config}, {}, dir.File("create"));
  INFO("create: " << create.Describe());
  REQUIRE(create.exit_code == 0);
  FailThenRerun(config, {"h0", "h1", "h2"}, hosts.dir(), dir);
}

TEST_CASE("launch and its ssh writers check host keys alike", "[ssh]") {
  testutil::TestHosts hosts(3);
  testutil::TempDir dir;
  const std::string empty = hosts.dir() + "/empty_known_hosts";
  testutil::WriteTextFile(empty, "");
  std::string text = testutil::HostsConfigText(hosts, testutil::HostsTransport::kSftp);
  text.replace(text.find(hosts.known_hosts()), hosts.known_hosts().size(), empty);
  const std::string config = hosts.dir() + "/cluster.conf";
  testutil::WriteTextFile(config, text);
  const Session session = MakeSession(407);
  const std::string calls = dir.File("calls.jsonl");
  testutil::WriteCallFile(calls, session);

  // No host is known: refused, as a peer failure, naming the documented key.
  const ProcessResult refused = testutil::RunProcess(
      {kDistwriter, "create", "--config", config}, {}, dir.File("refused"));
  CHECK(refused.exit_code == 4);
  CHECK_THAT(refused.err, Catch::Contains("host key unknown") &&
                              Catch::Contains("ssh_accept_unknown_host_keys"));

  // Accepting unknown keys: the writers' ssh logins accept them too, and nothing is
  // recorded in the known_hosts file.
  testutil::WriteTextFile(config, "ssh_accept_unknown_host_keys = true\n" + text);
  const ProcessResult create = testutil::RunProcess(
      {kDistwriter, "create", "--config", config}, {}, dir.File("create"));
  INFO("create: " << create.Describe());
  REQUIRE(create.exit_code == 0);
  const ProcessResult launched = Launch(config, calls, dir.File("launch"));
  INFO("launch: " << launched.Describe());
  REQUIRE(launched.exit_code == 0);
  CHECK_THAT(launched.out, Catch::Contains("version 2:"));
  CHECK(testutil::ReadFileOrEmpty(empty).empty());
  testutil::CheckDistDbMatchesSingle(config, {session});
}

}  // namespace
}  // namespace distwriter
