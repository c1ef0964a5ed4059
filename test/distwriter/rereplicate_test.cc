// `distwriter rereplicate` on one host (docs/DISTRIBUTED.md, "Losing a machine for good"):
// k = 3 writer processes with replicas = 2. A db with every copy in place has nothing to
// restore; a replaced machine (an empty root, left out of the holders by the rounds run
// without it) gets its sections' copies and its meta group's files back, through runs
// killed between sections and before publication, and the next round runs on it; a
// section whose holders lack one of its files refuses it, naming the file.
// The three-host test (three_host_test.cc) does the same over SFTP after a real loss.
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>

#include "distwriter/round_store.h"
#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"

namespace distwriter {
namespace {

namespace fs = std::filesystem;
using testutil::ProcessResult;
using testutil::Session;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
// The build that kills itself at the step WEBDB_KILL_AT names (test/killable/).
const std::string kKillable = PROJECT_BINARY_DIR "/test/killable/distwriter";
const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";
constexpr int kWriters = 3;

std::vector<Session> MakeSessions(uint64_t seed, size_t n) {
  return testutil::RoundSessions(seed, n, 50, 120, 20);
}

ProcessResult Rereplicate(testutil::DistCluster& cluster, const std::string& binary = kDistwriter,
                          const std::vector<std::string>& env = {}) {
  return testutil::RunProcess({binary, "rereplicate", "--config", cluster.config()}, env,
                              cluster.dir().File("rereplicate"));
}

bool RoundFileAnywhere(const testutil::DistCluster& cluster, uint64_t version) {
  for (int m = 0; m < kWriters; ++m) {
    if (fs::exists(cluster.MetaDir(m) + "/" + RoundFileName(version))) return true;
  }
  return false;
}

TEST_CASE("rereplicate with every copy in place has nothing to restore and publishes nothing",
          "[replicas][rereplicate]") {
  testutil::DistCluster cluster(kDistwriter, kWriters, 60000);
  cluster.SetGlobal("replicas", "2");
  cluster.Create();
  std::mt19937_64 cuts(90);
  cluster.RunRound(testutil::SplitSession(MakeSessions(90, 1)[0], kWriters, cuts));
  const uint64_t installed = cluster.Committed().version;

  const ProcessResult r = Rereplicate(cluster);
  INFO(r.Describe());
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("nothing to restore") &&
                        Catch::Contains("round " + std::to_string(installed)));
  for (int m = 0; m < kWriters; ++m) CHECK(cluster.Committed(m).version == installed);
  CHECK_FALSE(RoundFileAnywhere(cluster, installed + 1));
}


TEST_CASE("rereplicate restores a replaced machine's copies, killed and run again",
          "[replicas][rereplicate]") {
  testutil::DistCluster cluster(kDistwriter, kWriters, 60000);
  cluster.SetGlobal("replicas", "2");
  cluster.Create();
  // Three rounds kept: the one before the installed one stays kept after rereplicate's.
  const ProcessResult keep = testutil::RunProcess(
      {kWebdb, "keep", "--config", cluster.config(), "3"}, {}, cluster.dir().File("keep"));
  INFO(keep.Describe());
  REQUIRE(keep.exit_code == 0);
  const std::vector<Session> sessions = MakeSessions(91, 3);
  std::mt19937_64 cuts(91);
  cluster.RunRound(testutil::SplitSession(sessions[0], kWriters, cuts));
  const RoundManifest older = cluster.Committed();
  cluster.RunRound(testutil::SplitSession(sessions[1], kWriters, cuts));

  // Machine m1 replaced by an empty root, after rounds that ran without it: the installed
  // round names m0 alone for w0 and m2 alone for w1, as a round committed while m1 was
  // out of reach does.
  RoundManifest round = cluster.Committed();
  round.SetHolders(0, {"m0"}, "m0");
  round.SetHolders(1, {"m2"}, "m1");
  fs::remove_all(cluster.dir().File("m1"));
  fs::create_directories(cluster.dir().File("m1"));
  for (int m : {0, 2}) {
    std::ofstream(cluster.MetaDir(m) + "/" + RoundFileName(round.version), std::ios::trunc)
        << round.Encode();
  }
  CHECK_THAT(cluster.VerifyFindings(), Catch::Contains("missing replica: machine m1"));

  // Killed after w0's copy reached m1, then before the new round was published: nothing
  // is published, and each run goes on from what the last one left.
  for (const char* step : {"restore writer 1", "publish m0"}) {
    CAPTURE(step);
    const ProcessResult killed =
        Rereplicate(cluster, kKillable, {std::string("WEBDB_KILL_AT=") + step});
    INFO(killed.Describe());
    REQUIRE(killed.KilledBy(SIGKILL));
    CHECK_FALSE(RoundFileAnywhere(cluster, round.version + 1));
    CHECK(cluster.Committed(0).version == round.version);
  }
  CHECK(fs::exists(cluster.MetaDir(1) + "/CURRENT"));

  const ProcessResult done = Rereplicate(cluster);
  INFO(done.Describe());
  REQUIRE(done.exit_code == 0);
  CHECK_THAT(done.out, Catch::Contains("round " + std::to_string(round.version + 1) +
                                       " names the restored holders"));
  for (int m = 0; m < kWriters; ++m) {
    const RoundManifest now = cluster.Committed(m);
    CAPTURE(m);
    CHECK(now.version == round.version + 1);
    for (int i = 0; i < kWriters; ++i) {
      CHECK(now.HoldersOf(i, "m" + std::to_string(i)) ==
            std::vector<std::string>{"m" + std::to_string(i),
                                     "m" + std::to_string((i + 1) % kWriters)});
    }
  }
  // Every holder byte-identical to the round (verify reads each copy end to end).
  CHECK(cluster.VerifyFindings() == "");
  // The older kept round's files are back at m1 too, which that round names.
  for (int i : {0, 1}) {
    for (int t = 0; t < webdb::kNumTables; ++t) {
      const std::string name = SectionFile(older.sections[i], webdb::TableId(t)).name;
      CAPTURE(i, name);
      const std::string restored =
          testutil::ReadFileOrEmpty(cluster.GroupDirAt(i, 1) + "/section/" + name);
      CHECK_FALSE(restored.empty());
      CHECK(restored ==
            testutil::ReadFileOrEmpty(cluster.GroupDirAt(i, i == 0 ? 0 : 2) + "/section/" + name));
    }
  }
  const ProcessResult again = Rereplicate(cluster);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("nothing to restore"));

  // The next round runs on every writer's own machine, m1 included.
  cluster.RunRound(testutil::SplitSession(sessions[2], kWriters, cuts));
  testutil::CheckDistDbMatchesSingle(cluster.config(), sessions);
  CHECK(cluster.VerifyFindings() == "");
}

TEST_CASE("rereplicate refuses while a section's holders lack a file it names",
          "[replicas][rereplicate]") {
  testutil::DistCluster cluster(kDistwriter, kWriters, 60000);
  cluster.SetGlobal("replicas", "2");
  cluster.Create();
  std::mt19937_64 cuts(92);
  cluster.RunRound(testutil::SplitSession(MakeSessions(92, 1)[0], kWriters, cuts));
  const RoundManifest round = cluster.Committed();
  // w2's only holder named m2; its copy at m0 (no holder) of another size.
  RoundManifest edited = round;
  edited.SetHolders(2, {"m2"}, "m2");
  for (int m = 0; m < kWriters; ++m) {
    std::ofstream(cluster.MetaDir(m) + "/" + RoundFileName(round.version), std::ios::trunc)
        << edited.Encode();
  }
  const std::string name = SectionFile(round.sections[2], webdb::TableId::kPagesByUrl).name;
  fs::remove(cluster.GroupDir(2) + "/section/" + name);
  const ProcessResult r = Rereplicate(cluster);
  INFO(r.Describe());
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.err, Catch::Contains("rereplicate refused") && Catch::Contains(name) &&
                        Catch::Contains("machine m2"));
  CHECK_FALSE(RoundFileAnywhere(cluster, round.version + 1));
}

}  // namespace
}  // namespace distwriter
