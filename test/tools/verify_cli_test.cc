// `webdb verify --config FILE` as a script meets it: exit 0 on a sound distributed db
// (k = 3, after a round run by real writer processes), 3 with one line per finding on
// stdout (or a JSON summary on stdout and the findings on stderr), 4 when there is no db.
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
const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";

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
  testutil::GenOptions o;
  o.universe_urls = 40;
  o.hostile_bytes = false;
  testutil::SessionGenerator gen(3, o);
  std::mt19937_64 cuts(1);
  cluster.RunRound(testutil::SplitSession(gen.Next(), 3, cuts));

  ProcessResult clean = Verify(cluster, {});
  INFO(clean.Describe());
  CHECK(clean.exit_code == 0);
  CHECK(clean.out.empty());
  CHECK_THAT(clean.err, Catch::Contains("webdb: verified version 2: 12 files,") &&
                            Catch::Contains(" 0 findings"));
  ProcessResult json = Verify(cluster, {"--json", "-q"});
  CHECK(json.exit_code == 0);
  CHECK(json.out.starts_with("{\"clean\":true,\"version\":2,\"files\":12,"));

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

}  // namespace tools
