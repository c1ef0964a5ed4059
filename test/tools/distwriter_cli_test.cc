// The `distwriter` command as a careless or hostile user meets it: a config path that
// is taken, --writer and --memory mistakes, output that cannot be written, the leftovers
// of a killed launch, and a LOCK left by a writer that is gone.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "nutchfs/lock_owner.h"
#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"

namespace tools {
namespace {

namespace fs = std::filesystem;
using testutil::ProcessResult;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";

ProcessResult Run(const testutil::TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), kDistwriter);
  return testutil::RunProcess(args, {}, dir.File("run"));
}

testutil::Session MakeSession(uint64_t seed) {
  testutil::GenOptions o;
  o.universe_urls = 40;
  o.hostile_bytes = false;
  testutil::SessionGenerator gen(seed, o);
  testutil::Session s;
  while (s.size() < 20) s = gen.Next();
  return s;
}

}  // namespace

TEST_CASE("distwriter init-local replaces nothing without --force") {
  testutil::TempDir dir;
  const std::string conf = dir.File("cluster.conf");
  std::ofstream(conf) << "mine\n";
  ProcessResult refused =
      Run(dir, {"init-local", "--writers", "2", "--root", dir.File("r"), "--out", conf});
  CHECK(refused.exit_code == 3);
  CHECK_THAT(refused.err, Catch::Contains(conf + " exists (a file)") && Catch::Contains("--force"));
  CHECK(testutil::ReadFileOrEmpty(conf) == "mine\n");
  ProcessResult forced = Run(
      dir, {"init-local", "--writers", "2", "--root", dir.File("r"), "--out", conf, "--force"});
  CHECK(forced.exit_code == 0);
  CHECK_THAT(testutil::ReadFileOrEmpty(conf), Catch::Contains("writers = 2"));
  CHECK(Run(dir, {"create", "--config", conf, "--force"}).exit_code == 2);
}

TEST_CASE("distwriter --writer and --memory mistakes say what is wrong") {
  testutil::DistCluster cluster(kDistwriter, 3, 30000);
  cluster.Create();
  const testutil::TempDir& dir = cluster.dir();
  const std::string conf = cluster.config();
  const std::string calls = cluster.WriteCallFile(0, MakeSession(5));
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string says;
  };
  const Case cases[] = {
      {{"run", "--config", conf, calls}, 2, "run needs --writer I"},
      {{"run", "--config", conf, "--writer", "-1", calls}, 2, "--writer -1: a writer index is 0"},
      {{"run", "--config", conf, "--writer", "x", calls}, 2, "--writer"},
      {{"launch", "--config", conf, "--writer", "1", calls}, 2, "launch starts every writer"},
      {{"run", "--config", conf, "--writer", "3", calls}, 3, "has 3 writers (0..2)"},
      {{"run", "--config", conf, "--writer", "0", "--memory", "10T", calls},
       2,
       "--memory 10T: more than this machine's memory"},
  };
  for (const Case& c : cases) {
    ProcessResult r = Run(dir, c.args);
    INFO(r.Describe());
    CHECK(r.exit_code == c.exit_code);
    CHECK_THAT(r.err, Catch::Contains(c.says));
  }
  // The config's memory key is used (and checked) when there is no --memory.
  std::string text = testutil::ReadFileOrEmpty(conf);
  text.insert(text.find("writers ="), "memory = 10T\n");
  std::ofstream(conf) << text;
  ProcessResult r = Run(dir, {"run", "--config", conf, "--writer", "0", calls});
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains(conf + ":") &&
                        Catch::Contains("memory = 10T: more than this machine's memory"));
}

TEST_CASE("distwriter machines and config --get print the config as distwriter reads it") {
  testutil::TempDir dir;
  const std::string conf = dir.File("mixed.conf");
  std::ofstream(conf) << "db = crawl\nwriters = 3\nmemory = 1G\nssh_identity = keys/id\n"
                         "[machine.a]\nlocation = " << dir.File("a root") << "\n"
                      << "[machine.b]\nlocation = alice@b.example:2222:/srv/b\n"
                         "[machine.c]\nlocation = 10.0.0.3:/srv/c/\n"
                         "[writer.0]\nmachine = a\n[writer.2]\nmachine = c\n"
                         "[writer.1]\nmachine = b\n";
  ProcessResult machines = Run(dir, {"machines", "--config", conf});
  INFO(machines.Describe());
  CHECK(machines.exit_code == 0);
  CHECK(machines.out == "0\ta\tlocal\t-\t-\t-\t" + dir.File("a root") +
                            "\n"
                            "1\tb\tssh\tb.example\t2222\talice\t/srv/b\n"
                            "2\tc\tssh\t10.0.0.3\t22\t-\t/srv/c\n");
  const std::pair<std::string, std::string> values[] = {
      {"db", "crawl"},
      {"writers", "3"},
      {"memory", "1073741824"},
      {"timeout_ms", "600000"},
      {"ssh_identity", dir.File("keys/id")},
      {"ssh_known_hosts", ""},
      {"ssh_accept_unknown_host_keys", "false"},
  };
  for (const auto& [key, value] : values) {
    CAPTURE(key);
    ProcessResult got = Run(dir, {"config", "--config", conf, "--get", key});
    INFO(got.Describe());
    CHECK(got.exit_code == 0);
    CHECK(got.out == value + "\n");
  }
  ProcessResult unknown = Run(dir, {"config", "--config", conf, "--get", "writer.0.machine"});
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("--get writer.0.machine: not a key distwriter reports"));
  CHECK(Run(dir, {"config", "--config", conf}).exit_code == 2);
  CHECK(Run(dir, {"machines", "--config", conf, "--get", "db"}).exit_code == 2);
  std::ofstream(dir.File("bad.conf")) << "db = crawl\nwriters = 2\n[writer.0]\nmachine = a\n";
  ProcessResult bad = Run(dir, {"machines", "--config", dir.File("bad.conf")});
  CHECK(bad.exit_code == 3);
  CHECK_THAT(bad.err, Catch::Contains(dir.File("bad.conf") + ":"));
  CHECK(bad.out.empty());
}

TEST_CASE("distwriter launch: unwritable output, a killed launch's slices, a gone writer's lock") {
  testutil::DistCluster cluster(kDistwriter, 3, 30000);
  cluster.Create();
  const testutil::TempDir& dir = cluster.dir();
  const std::string conf = cluster.config();

  // A slice piece of a launch on this host whose process is gone.
  const std::string stale = cluster.GroupDir(1) + "/inputs/launch-" +
                            nutchfs::CurrentProcess("").host + "-999999999-0.jsonl";
  fs::create_directories(cluster.GroupDir(1) + "/inputs");
  std::ofstream(stale) << "{}\n";

  const std::string calls = cluster.WriteCallFile(0, MakeSession(7));
  ProcessResult full = testutil::RunProcess(
      {"/bin/sh", "-c", "'" + kDistwriter + "' launch --config '" + conf + "' --quiet '" + calls +
                            "' > /dev/full"},
      {}, dir.File("full"));
  INFO(full.Describe());
  CHECK(full.exit_code == 4);
  CHECK_THAT(full.err, Catch::Contains("standard output"));
  CHECK_FALSE(fs::exists(stale));
  CHECK(cluster.Committed(0).version == 2);  // the round itself was done

  // writer 1's LOCK left by a writer on another host.
  nutchfs::LockOwner other = nutchfs::CurrentProcess("m1");
  other.host = "elsewhere.example";
  std::ofstream(cluster.GroupDir(1) + "/LOCK") << nutchfs::EncodeLockOwner(other);
  ProcessResult busy = Run(dir, {"run", "--config", conf, "--writer", "1", calls});
  CHECK(busy.exit_code == 4);
  CHECK_THAT(busy.err, Catch::Contains("elsewhere.example") &&
                           Catch::Contains("distwriter unlock --config " + conf + " --writer 1"));
  ProcessResult unlocked = Run(dir, {"unlock", "--config", conf, "--writer", "1"});
  INFO(unlocked.Describe());
  CHECK(unlocked.exit_code == 0);
  CHECK_FALSE(fs::exists(cluster.GroupDir(1) + "/LOCK"));
  CHECK(Run(dir, {"unlock", "--config", conf, "--writer", "1"}).exit_code == 1);
}

}  // namespace tools
