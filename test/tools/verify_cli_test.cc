// `webdb verify --config FILE` as a script meets it: exit 0 on a sound distributed db
// (k = 3, after a round run by real writer processes), 3 with one line per finding on
// stdout (or a JSON summary on stdout and the findings on stderr), 4 when there is no db.
// And the retained rounds of a distributed db through the same front end: `versions`,
// `keep`, `rollback` and the read commands' `--version` with `--config`.
#include <signal.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <random>

#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"

namespace tools {
namespace {

using testutil::ProcessResult;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kWebdb = PROJECT_BINARY_DIR "/test/killable/webdb";

// Sessions of well-formed calls over `universe` urls.
testutil::SessionGenerator Sessions(uint64_t seed, int universe) {
  testutil::GenOptions o;
  o.universe_urls = universe;
  o.hostile_bytes = false;
  return testutil::SessionGenerator(seed, o);
}

ProcessResult Webdb(const testutil::DistCluster& cluster, std::vector<std::string> args) {
  args.insert(args.begin(), kWebdb);
  return testutil::RunProcess(args, {}, cluster.dir().File("run"));
}

ProcessResult Verify(const testutil::DistCluster& cluster, std::vector<std::string> flags) {
  std::vector<std::string> args{kWebdb, "verify", "--config", cluster.config()};
  args.insert(args.end(), flags.begin(), flags.end());
  return testutil::RunProcess(args, {}, cluster.dir().File("run"));
}

}  // namespace

TEST_CASE("webdb verify --config exits 0 on a sound distributed db and 3 with its findings") {
  testutil::DistCluster cluster(kDistwriter, 3, 60000);
  ProcessResult none = Verify(cluster, {"-q"});
  CHECK(none.exit_code == 4);
  CHECK_THAT(none.err, Catch::Contains("no distributed webdb"));
  cluster.Create();
  testutil::SessionGenerator gen = Sessions(3, 40);
  std::mt19937_64 cuts(1);
  cluster.RunRound(testutil::SplitSession(gen.Next(), 3, cuts));

  ProcessResult clean = Verify(cluster, {});
  INFO(clean.Describe());
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.empty());
  // Round 2's twelve section files, and round 1's (kept: twelve empty ones).
  CHECK_THAT(clean.err,
             Catch::Contains("webdb: verified version 2 and the tables of kept version 1: 24 files,") &&
                 Catch::Contains(" 0 findings"));
  ProcessResult json = Verify(cluster, {"--json", "-q"});
  CHECK(json.exit_code == 0);
  CHECK(json.out.starts_with("{\"clean\":true,\"version\":2,\"versionsChecked\":[2,1],\"files\":24,"));

  const std::string current = cluster.MetaDir(1) + "/CURRENT";
  std::ofstream(current, std::ios::trunc) << "ROUND-000001\n";
  ProcessResult behind = Verify(cluster, {"-q"});
  CHECK(behind.exit_code == 3);
  CHECK(behind.out ==
        current + ": writer 1 (machine m1) is on ROUND-000001, behind the db's ROUND-000002\n");
  ProcessResult damaged_json = Verify(cluster, {"--json", "-q"});
  CHECK(damaged_json.exit_code == 3);
  CHECK(damaged_json.out.starts_with("{\"clean\":false,"));
  CHECK_THAT(damaged_json.out, Catch::Contains("\"findings\":1,"));
  CHECK_THAT(damaged_json.err, Catch::Contains("behind the db's ROUND-000002"));
}

TEST_CASE("webdb versions and keep and rollback and --version with --config") {
  testutil::DistCluster cluster(kDistwriter, 2, 60000);
  cluster.Create();
  const std::string& config = cluster.config();
  ProcessResult keep = Webdb(cluster, {"keep", "--config", config, "3"});
  INFO(keep.Describe());
  REQUIRE(keep.exit_code == 0);
  CHECK_THAT(keep.err, Catch::Contains("keeps 3 rounds (round 2)"));
  testutil::SessionGenerator gen = Sessions(5, 30);
  std::mt19937_64 cuts(2);
  std::vector<std::string> dumps;  // pagesByURL after rounds 3, 4, 5
  for (int i = 0; i < 3; ++i) {
    cluster.RunRound(testutil::SplitSession(gen.Next(), 2, cuts));
    ProcessResult dump = Webdb(cluster, {"dump", "--config", config, "--table", "pagesByURL"});
    REQUIRE(dump.exit_code == 0);
    dumps.push_back(dump.out);
  }
  REQUIRE(dumps[0] != dumps[2]);

  ProcessResult listed = Webdb(cluster, {"versions", "--config", config, "--json"});
  INFO(listed.Describe());
  REQUIRE(listed.exit_code == 0);
  CHECK(listed.out.starts_with("{\"keep\":3,\"versions\":[{\"version\":5,"));
  CHECK_THAT(listed.out, Catch::Contains("{\"version\":3,") &&
                             !Catch::Contains("{\"version\":2,") &&
                             !Catch::Contains("\"timeMs\":0,"));
  ProcessResult old = Webdb(cluster, {"dump", "--config", config, "--table", "pagesByURL",
                                      "--version", "3"});
  REQUIRE(old.exit_code == 0);
  CHECK(old.out == dumps[0]);
  ProcessResult gone = Webdb(cluster, {"dump", "--config", config, "--table", "pagesByURL",
                                       "--version", "2"});
  CHECK(gone.exit_code == 4);
  CHECK_THAT(gone.err, Catch::Contains("round 2 is not kept (the db keeps rounds 5, 4 and 3)"));
  ProcessResult stats = Webdb(cluster, {"stats", "--config", config, "--quick", "--version", "4"});
  REQUIRE(stats.exit_code == 0);
  CHECK_THAT(stats.out, Catch::Contains("\"version\":4,\"keep\":3,\"versionsKept\":3"));
  ProcessResult verified = Webdb(cluster, {"verify", "--config", config, "--version", "3"});
  INFO(verified.Describe());
  CHECK(verified.exit_code == 0);
  CHECK_THAT(verified.err, Catch::Contains("verified version 3"));

  ProcessResult rolled = Webdb(cluster, {"rollback", "--config", config, "3"});
  INFO(rolled.Describe());
  REQUIRE(rolled.exit_code == 0);
  CHECK_THAT(rolled.err, Catch::Contains("rolled back to round 3: it is current as round 6"));
  ProcessResult now = Webdb(cluster, {"dump", "--config", config, "--table", "pagesByURL"});
  CHECK(now.out == dumps[0]);
  ProcessResult text = Webdb(cluster, {"versions", "--config", config});
  CHECK_THAT(text.out, Catch::Contains("current, rollback to 3") && Catch::Contains(" UTC "));
  CHECK(Verify(cluster, {"-q"}).exit_code == 0);
  // explain tells the history in the kept rounds 4, 5 and 6 (the rollback).
  const size_t at = now.out.find("\"url\":\"");
  REQUIRE(at != std::string::npos);
  const std::string url = now.out.substr(at + 7, now.out.find('"', at + 7) - at - 7);
  ProcessResult explained = Webdb(cluster, {"explain", "--config", config, url, "--json"});
  INFO(explained.Describe());
  REQUIRE(explained.exit_code == 0);
  CHECK_THAT(explained.out, Catch::Contains("\"history\":{\"versions\":[{\"version\":4,") &&
                                Catch::Contains("{\"version\":6,\"rollbackTo\":3,"));
}

TEST_CASE("webdb rollback --config killed as each step begins is finished by running it again",
          "[fault]") {
  for (const std::string step :
       {"rollback", "publish m0", "publish m1", "install m0", "install m1", "collect"}) {
    CAPTURE(step);
    testutil::DistCluster cluster(kDistwriter, 2, 60000);
    cluster.Create();
    const std::string& config = cluster.config();
    testutil::SessionGenerator gen = Sessions(9, 20);
    std::mt19937_64 cuts(4);
    cluster.RunRound(testutil::SplitSession(gen.Next(), 2, cuts));
    const std::string two =
        Webdb(cluster, {"dump", "--config", config, "--table", "pagesByURL"}).out;
    cluster.RunRound(testutil::SplitSession(gen.Next(), 2, cuts));
    ProcessResult killed = testutil::RunProcess(
        {kWebdb, "rollback", "--config", config, "2"}, {"WEBDB_KILL_AT=" + step},
        cluster.dir().File("killed"));
    REQUIRE(killed.signal == SIGKILL);
    ProcessResult again = Webdb(cluster, {"rollback", "-q", "--config", config, "2"});
    INFO(again.Describe());
    REQUIRE(again.exit_code == 0);
    CHECK(Webdb(cluster, {"dump", "--config", config, "--table", "pagesByURL"}).out == two);
    for (int m = 0; m < 2; ++m) CHECK(cluster.Committed(m).version == 4);
    ProcessResult verified = Verify(cluster, {"-q"});
    INFO(verified.Describe());
    CHECK(verified.exit_code == 0);
  }
}

}  // namespace tools
