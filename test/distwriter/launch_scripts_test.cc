// The launch scripts (docs/DISTRIBUTED.md, "Running it"): scripts/launch-local.sh makes,
// creates and launches a k-writer cluster on this host; scripts/launch-nfs.sh and
// scripts/launch-ssh.sh check the config's machines (mounted paths; hosts answering ssh)
// before `distwriter launch`, and refuse to start any writer when one is not there.
// Every result is compared with the single-machine writer fed the same calls.
#include <catch2/catch.hpp>

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
const std::string kScripts = PROJECT_SOURCE_DIR "/scripts/";
const std::vector<std::string> kEnv = {"DISTWRITER=" + kDistwriter};

// Two call files of modest random sessions in dir; the sessions in *sessions.
std::vector<std::string> WriteSessions(uint64_t seed, const testutil::TempDir& dir,
                                       std::vector<Session>* sessions) {
  testutil::GenOptions o;
  o.universe_urls = 60;
  o.hostile_bytes = false;
  testutil::SessionGenerator gen(seed, o);
  std::vector<std::string> files;
  while (files.size() < 2) {
    Session s = gen.Next();
    if (s.size() < 20) continue;
    files.push_back(dir.File("calls-" + std::to_string(files.size()) + ".jsonl"));
    testutil::WriteCallFile(files.back(), s);
    sessions->push_back(std::move(s));
  }
  return files;
}

ProcessResult Run(const std::vector<std::string>& argv, const testutil::TempDir& dir,
                  const std::string& log, const std::string& extra_env = "") {
  std::vector<std::string> env = kEnv;
  if (!extra_env.empty()) env.push_back(extra_env);
  return testutil::Subprocess::Start(argv, env, dir.File(log))->Wait(std::chrono::seconds(60));
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("launch-local.sh makes the cluster once, then launches a round per call") {
  testutil::TempDir dir;
  std::vector<Session> sessions;
  const auto calls = WriteSessions(31, dir, &sessions);
  const std::string script = kScripts + "launch-local.sh";
  const std::string cluster = dir.File("cluster");
  for (size_t r = 0; r < calls.size(); ++r) {
    CAPTURE(r);
    const ProcessResult p = Run({script, "3", "--quiet", calls[r]}, dir,
                                "local-" + std::to_string(r), "WEBDB_LOCAL=" + cluster);
    INFO(p.Describe() << "\n" << p.out);
    REQUIRE(p.exit_code == 0);
    CHECK(Contains(p.out, "version " + std::to_string(r + 2) + ":"));
  }
  testutil::CheckDistDbMatchesSingle(cluster + "/cluster.conf", sessions);

  const ProcessResult wrong_k =
      Run({script, "2", calls[0]}, dir, "wrong-k", "WEBDB_LOCAL=" + cluster);
  CHECK(wrong_k.exit_code == 2);
  CHECK(Contains(wrong_k.err, "has 3 writers, not 2"));
}

// Three machines whose roots are directories of one "mount" (here a temporary directory).
std::string SharedConfig(const testutil::TempDir& dir, const std::string& location_of_n1) {
  std::string text = "db = crawl\nwriters = 3\ntimeout_ms = 30000\n";
  for (int i = 0; i < 3; ++i) {
    const std::string n = "n" + std::to_string(i);
    text += "[machine." + n + "]\nlocation = " +
            (i == 1 && !location_of_n1.empty() ? location_of_n1 : dir.File("share/" + n)) +
            "\n[writer." + std::to_string(i) + "]\nmachine = " + n + "\n";
  }
  const std::string path = dir.File(location_of_n1.empty() ? "nfs.conf" : "bad.conf");
  testutil::WriteTextFile(path, text);
  return path;
}

TEST_CASE("launch-nfs.sh checks that every root is a reachable local path, then launches") {
  testutil::TempDir dir;
  std::vector<Session> sessions;
  const auto calls = WriteSessions(32, dir, &sessions);
  const std::string script = kScripts + "launch-nfs.sh";
  const std::string config = SharedConfig(dir, "");
  REQUIRE(Run({kDistwriter, "create", "--config", config}, dir, "create").exit_code == 0);
  const ProcessResult p = Run({script, config, "--quiet", calls[0], calls[1]}, dir, "nfs");
  INFO(p.Describe() << "\n" << p.out);
  REQUIRE(p.exit_code == 0);
  CHECK(Contains(p.err, "launch-nfs: writer 2 (machine n2): " + dir.File("share/n2") + " on /"));
  CHECK(Contains(p.out, "version 2:"));
  Session both = sessions[0];
  both.insert(both.end(), sessions[1].begin(), sessions[1].end());
  testutil::CheckDistDbMatchesSingle(config, {both});

  const ProcessResult bad =
      Run({script, SharedConfig(dir, "root@10.0.0.1:/srv"), calls[0]}, dir, "bad");
  CHECK(bad.exit_code == 1);
  CHECK(Contains(bad.err, "writer 1 (machine n1): 'root@10.0.0.1:/srv' is not a local path"));
}

// Round 1 with h1's sshd down: the script names it and starts no writer. Then both
// rounds from a shell loop reading call file names from its standard input: the ssh
// clients of `distwriter launch` must not eat that input (ssh -n), or the loop would
// end after one round.
TEST_CASE("launch-ssh.sh refuses a host that does not answer, then runs rounds in a loop",
          "[ssh]") {
  testutil::TestHosts hosts(3);
  testutil::TempDir dir;
  std::vector<Session> sessions;
  const auto calls = WriteSessions(33, dir, &sessions);
  const std::string script = kScripts + "launch-ssh.sh";
  const std::string config = testutil::WriteHostsConfig(hosts, testutil::HostsTransport::kSftp);
  REQUIRE(Run({kDistwriter, "create", "--config", config}, dir, "create").exit_code == 0);
  const std::string current = hosts.host(0).root + "/crawl/meta/CURRENT";
  const std::string created = testutil::ReadFileOrEmpty(current);
  REQUIRE_FALSE(created.empty());

  hosts.StopSshd(1);
  const ProcessResult down = Run({script, config, calls[0]}, dir, "down");
  CHECK(down.exit_code == 1);
  CHECK(Contains(down.err, "writer 1 (machine h1): ssh -p 22 root@" + hosts.host(1).address));
  CHECK(testutil::ReadFileOrEmpty(current) == created);
  hosts.StartSshd(1);

  const std::string loop = "printf '%s\\n' " + testutil::ShellQuote(calls[0]) + " " +
                           testutil::ShellQuote(calls[1]) + " | while read -r f; do " +
                           testutil::ShellQuote(script) + " " + testutil::ShellQuote(config) +
                           " --quiet \"$f\" || exit 1; done";
  const ProcessResult p = Run({"/bin/sh", "-c", loop}, dir, "loop");
  INFO(p.Describe() << "\n" << p.out);
  REQUIRE(p.exit_code == 0);
  CHECK(Contains(p.out, "version 2:"));
  CHECK(Contains(p.out, "version 3:"));
  testutil::CheckDistDbMatchesSingle(config, sessions);
}

}  // namespace
}  // namespace distwriter
