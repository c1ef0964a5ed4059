// The `distwriter` command as a careless or hostile user meets it: a config path that
// is taken, --writer and --memory mistakes, output that cannot be written, the leftovers
// of a killed launch, and a lease held by a writer on another host.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <regex>
#include <sstream>

#include "nutchfs/lease.h"
#include "nutchfs/lock_owner.h"
#include "test/util/dist_cluster.h"
#include "test/util/rank_graph.h"
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
      {"distwriter", ""},
  };
  for (const auto& [key, value] : values) {
    CAPTURE(key);
    ProcessResult got = Run(dir, {"config", "--config", conf, "--get", key});
    INFO(got.Describe());
    CHECK(got.exit_code == 0);
    CHECK(got.out == value + "\n");
  }
  std::ofstream(dir.File("named.conf")) << "distwriter = /opt/bin/distwriter\n"
                                         << testutil::ReadFileOrEmpty(conf);
  CHECK(Run(dir, {"config", "--config", dir.File("named.conf"), "--get", "distwriter"}).out ==
        "/opt/bin/distwriter\n");
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

TEST_CASE("distwriter launch: unwritable output, a killed launch's slices, a lease held elsewhere") {
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

  // writer 1's lease held, and renewed, by a writer on another host.
  auto env = nutchfs::NewLocalEnv();
  nutchfs::LeaseRequest request;
  request.name = "LOCK";
  request.what = "lease w1/LOCK";
  request.lease_ms = 400;
  request.me = nutchfs::CurrentProcess("m1");
  request.me.host = "elsewhere.example";
  request.me.boot_id = "other-boot";
  request.places.push_back({"m1", env.get(), cluster.GroupDir(1) + "/.locks", {}});
  auto other = nutchfs::TakeLease(request);
  REQUIRE(other);
  ProcessResult busy = Run(dir, {"run", "--config", conf, "--writer", "1", calls});
  CHECK(busy.exit_code == 4);
  CHECK_THAT(busy.err, Catch::Contains("elsewhere.example") &&
                           Catch::Contains("distwriter unlock --config " + conf + " --writer 1"));
  ProcessResult unlocked = Run(dir, {"unlock", "--config", conf, "--writer", "1"});
  INFO(unlocked.Describe());
  CHECK(unlocked.exit_code == 0);
  CHECK_THAT(unlocked.err, Catch::Contains("ended the lease of writer 1"));
  // The holder elsewhere learns at its next renewal that it lost the lease.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while ((*other)->Check().ok() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK_THAT((*other)->Check().message(), Catch::Contains("taken over by epoch"));
  CHECK(Run(dir, {"unlock", "--config", conf, "--writer", "1"}).exit_code == 1);
}

}  // namespace tools

namespace tools {
namespace {

// The Kubernetes recipe of docs/DISTRIBUTED.md ("Schedulers"): every pod of an Indexed
// Job runs the same command line, `sh -c 'exec distwriter run ... part-$JOB_COMPLETION_INDEX'`,
// and is told its index by JOB_COMPLETION_INDEX alone. Three such "pods" run a round that
// equals the single-machine db; a bad index names the variable.
TEST_CASE("distwriter run takes its writer from JOB_COMPLETION_INDEX, as an Indexed Job's pod") {
  testutil::DistCluster cluster(kDistwriter, 3, 30000);
  cluster.Create();
  const testutil::Session session = MakeSession(11);
  // Contiguous thirds: the distributed order is writer 0's calls, then writer 1's, ...
  std::vector<testutil::Session> slices(3);
  for (size_t c = 0; c < session.size(); ++c) slices[c * 3 / session.size()].push_back(session[c]);
  const std::string calls = cluster.dir().File("calls");
  fs::create_directories(calls);
  for (int i = 0; i < 3; ++i) {
    fs::rename(cluster.WriteCallFile(i, slices[i]),
               calls + "/part-" + std::to_string(i) + ".jsonl");
  }
  const std::string command = "exec " + kDistwriter + " run --config " + cluster.config() +
                              " --quiet " + calls + "/part-$JOB_COMPLETION_INDEX.jsonl";
  std::vector<std::unique_ptr<testutil::Subprocess>> pods;
  for (int i = 0; i < 3; ++i) {
    pods.push_back(testutil::Subprocess::Start({"/bin/sh", "-c", command},
                                               {"JOB_COMPLETION_INDEX=" + std::to_string(i)},
                                               cluster.dir().File("pod" + std::to_string(i))));
  }
  for (int i = 0; i < 3; ++i) {
    ProcessResult r = pods[i]->Wait();
    INFO(r.Describe());
    REQUIRE(r.exit_code == 0);
    CHECK(testutil::ParseRunReport(r.out).writer == i);
    CHECK_THAT(r.err, Catch::Contains("writer " + std::to_string(i) + ", from JOB_COMPLETION_INDEX"));
  }
  testutil::CheckDistDbMatchesSingle(cluster.config(), {session});

  ProcessResult bad = testutil::RunProcess({"/bin/sh", "-c", command},
                                           {"JOB_COMPLETION_INDEX=3"}, cluster.dir().File("bad"));
  CHECK(bad.exit_code == 3);
  CHECK_THAT(bad.err, Catch::Contains("JOB_COMPLETION_INDEX 3:") &&
                          Catch::Contains("has 3 writers (0..2)"));
  ProcessResult junk = testutil::RunProcess({"/bin/sh", "-c", command},
                                            {"JOB_COMPLETION_INDEX=two"},
                                            cluster.dir().File("junk"));
  CHECK(junk.exit_code == 2);
  CHECK_THAT(junk.err, Catch::Contains("JOB_COMPLETION_INDEX='two'"));
}

}  // namespace

namespace {

// The numbers of array `key` in a report line.
std::vector<double> ReportArray(const std::string& line, const std::string& key) {
  std::smatch m;
  REQUIRE(std::regex_search(line, m, std::regex("\"" + key + "\":\\[([^\\]]*)\\]")));
  std::vector<double> values;
  std::stringstream in(m[1].str());
  for (std::string v; std::getline(in, v, ',');) values.push_back(std::stod(v));
  return values;
}

}  // namespace

// The second round gives every writer the calls of the first again, without a session:
// they are that round's, found applied before stage 0, so nothing is sent.
TEST_CASE("distwriter run reports per stage its waits at barriers, files sent and its CPU") {
  testutil::DistCluster cluster(kDistwriter, 3);
  cluster.Create();
  const testutil::Session session = MakeSession(11);
  std::vector<std::string> files;
  for (int i = 0; i < 3; ++i) files.push_back(cluster.WriteCallFile(i, session));
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    std::vector<std::unique_ptr<testutil::Subprocess>> writers;
    for (int i = 0; i < 3; ++i) writers.push_back(cluster.StartWriter(i, files[i]));
    for (int i = 0; i < 3; ++i) {
      ProcessResult r = writers[i]->Wait();
      INFO(r.Describe());
      REQUIRE(r.exit_code == 0);
      CHECK(testutil::ParseRunReport(r.out).already_applied == (round == 1));
      const std::vector<double> stages = ReportArray(r.out, "stage_seconds");
      const std::vector<double> waits = ReportArray(r.out, "wait_seconds");
      REQUIRE(stages.size() == 7);
      REQUIRE(waits.size() == 7);
      for (int s = 0; s < 7; ++s) {
        CAPTURE(s);
        CHECK(waits[s] >= 0);
        CHECK(waits[s] <= stages[s] + 0.0001);  // both rounded to 0.1 ms
      }
      // Stage 0 and the commit go to all k writers, itself first; stages 1..5 to its
      // k - 1 peers (its own section stays in its sorter). A rerun stops before stage 0.
      const std::vector<double> sent = round == 0 ? std::vector<double>{3, 2, 2, 2, 2, 2, 3}
                                                  : std::vector<double>(7, 0);
      CHECK(ReportArray(r.out, "files_sent") == sent);
      std::smatch cpu;
      REQUIRE(std::regex_search(r.out, cpu, std::regex(R"("cpu_seconds":([0-9.]+)\})")));
      CHECK(std::stod(cpu[1].str()) > 0);
    }
  }
}

TEST_CASE("distwriter launch --json prints the round as one JSON object, -q no progress") {
  testutil::DistCluster cluster(kDistwriter, 2);
  cluster.Create();
  const testutil::TempDir& dir = cluster.dir();
  const std::string calls = cluster.WriteCallFile(0, MakeSession(7));
  ProcessResult r = Run(dir, {"launch", "-q", "--json", "--config", cluster.config(), calls});
  INFO(r.Describe());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(std::regex_match(
      r.out, std::regex(R"(\{"version":2,"pages":\d+,"links":\d+,"bytesPerStage":\[[\d,]+\],)"
                        R"("writers":\[\{"machine":"m0","report":\{"writer":0,"version":2,.*\}\},)"
                        R"(\{"machine":"m1","report":\{"writer":1,"version":2,.*\}\}\]\}\n)")));
  ProcessResult table = Run(dir, {"launch", "-q", "--config", cluster.config(), calls});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::StartsWith("writer  machine"));
  CHECK(Run(dir, {"create", "--json", "--config", cluster.config()}).exit_code == 2);
}

TEST_CASE("distwriter launch --rank --json prints the rank round as one JSON object") {
  testutil::DistCluster cluster(kDistwriter, 2);
  cluster.Create();
  const testutil::TempDir& dir = cluster.dir();
  const std::string calls =
      cluster.WriteCallFile(0, testutil::RankGraph::Random(3, 100, 60, 8, true).ToSession());
  REQUIRE(Run(dir, {"launch", "-q", "--config", cluster.config(), calls}).exit_code == 0);
  ProcessResult r = Run(dir, {"launch", "-q", "--json", "--config", cluster.config(), "--rank",
                              "--iterations", "2"});
  INFO(r.Describe() << r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(std::regex_match(
      r.out, std::regex(R"(\{"version":3,"pages":[1-9]\d*,"iterations":2,"l1":[\d.e+-]+,)"
                        R"("alreadyApplied":false,)"
                        R"("writers":\[\{"machine":"m0","report":\{"writer":0,"version":3,.*\}\},)"
                        R"(\{"machine":"m1","report":\{"writer":1,"version":3,.*\}\}\]\}\n)")));
  ProcessResult table = Run(dir, {"launch", "-q", "--config", cluster.config(), "--rank"});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::StartsWith("writer  machine       total_s"));
}

}  // namespace tools
