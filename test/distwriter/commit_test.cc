// The distributed commit (docs/DISTRIBUTED.md, "The commit", "Roll forward",
// "Collecting") with writers as separate processes killed at every step of it — as
// `distwriter run` processes, one per writer, and under `distwriter launch`: whatever the
// step, once the killed writers are started again (with the same calls, or with the next
// round's), every machine ends on the same round, readers never see a mix, and the db
// equals the single-machine writer's.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "distwriter/round_store.h"
#include "test/util/call_writer.h"
#include "test/util/dist_cluster.h"
#include "test/util/fault_db.h"
#include "test/util/hosts_config.h"
#include "test/util/session_gen.h"

namespace distwriter {
namespace {

using testutil::ExpectAllSucceed;
using testutil::ExpectSuccess;
using testutil::FaultDb;
using testutil::ProcessResult;
using testutil::Subprocess;

// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kDistwriter = PROJECT_BINARY_DIR "/test/killable/distwriter";
constexpr int kK = 3;

// The kill points of writer v's commit, in the order it reaches them (machine m<j> is
// writer j's): it sends its section manifest to itself, then to the others in index
// order, decides, publishes the round to the other machines, installs it, cleans up.
std::vector<std::string> CommitPoints(int v) {
  std::vector<std::string> points = {"commit send " + std::to_string(v)};
  for (int j = 0; j < kK; ++j) {
    if (j != v) points.push_back("commit send " + std::to_string(j));
  }
  points.push_back("commit decide");
  for (int j = 0; j < kK; ++j) {
    if (j != v) points.push_back("commit publish m" + std::to_string(j));
  }
  points.insert(points.end(), {"commit install", "done"});
  return points;
}

// True when round N is decided on some machine (it will be rolled forward).
bool Decided(FaultDb& db, uint64_t round) {
  for (int i = 0; i < kK; ++i) {
    if (std::filesystem::exists(db.cluster().MetaDir(i) + "/" + RoundFileName(round))) return true;
  }
  return false;
}

std::unique_ptr<Subprocess> StartVictim(FaultDb& db, const FaultDb::Round& r, int victim,
                                        const std::string& point) {
  return db.Start(victim, r, {"WEBDB_KILL_AT=" + point});
}

// Issue 10, defect 1: writer 1 of three is killed right after its section manifest
// reached writer 0 (it sends to itself, then 0, then 2). Writer 0 decides and commits;
// writer 2 must not time out, and no machine may stay on the old round once writer 1 is
// back; the next round must wait on the right round number.
TEST_CASE("a writer killed right after its section manifest reaches writer 0", "[fault]") {
  FaultDb db(kDistwriter, kK, 51, 60000);
  const FaultDb::Round r = db.NextRound();
  std::vector<std::unique_ptr<Subprocess>> writers;
  writers.push_back(db.Start(0, r));
  writers.push_back(StartVictim(db, r, 1, "commit send 2"));
  writers.push_back(db.Start(2, r));
  REQUIRE(writers[1]->Wait().KilledBy(SIGKILL));
  writers[1].reset();
  ExpectAllSucceed(writers);
  db.ExpectAppliedForReaders(r);  // readers see the whole new round
  // Killed again while rolling the round forward, then started once more.
  REQUIRE(StartVictim(db, r, 1, "commit install")->Wait().KilledBy(SIGKILL));
  ProcessResult restarted = ExpectSuccess(*db.Start(1, r), 1);
  const testutil::RunReport report = testutil::ParseRunReport(restarted.out);
  CHECK(report.already_applied);
  CHECK(report.version == db.version());
  db.ExpectEveryMachineCurrent();
  testutil::RunAll(db, db.NextRound());
}

TEST_CASE("a writer killed at each step of the commit and restarted with its calls", "[fault]") {
  FaultDb db(kDistwriter, kK, 52, 60000);
  for (int victim : {1, 0, 2}) {
    for (const std::string& point : CommitPoints(victim)) {
      CAPTURE(victim, point);
      const FaultDb::Round r = db.NextRound();
      std::vector<std::unique_ptr<Subprocess>> writers;
      for (int i = 0; i < kK; ++i) {
        writers.push_back(i == victim ? StartVictim(db, r, i, point) : db.Start(i, r));
      }
      REQUIRE(writers[victim]->Wait().KilledBy(SIGKILL));
      writers[victim] = db.Start(victim, r);
      ExpectAllSucceed(writers);
      db.ExpectApplied(r);
    }
  }
}

// Once a peer could decide without the killed writer (it sent its manifest to all but
// the last one), the others finish the round; the next round, with other calls for every
// writer, starts with the killed one rolling the decided round forward.
TEST_CASE("a writer killed late in the commit, then the next round with other calls", "[fault]") {
  FaultDb db(kDistwriter, kK, 53, 60000);
  for (int victim : {1, 0}) {
    const std::vector<std::string> all = CommitPoints(victim);
    for (auto point = all.begin() + kK - 1; point != all.end(); ++point) {
      CAPTURE(victim, *point);
      const FaultDb::Round r = db.NextRound();
      std::vector<std::unique_ptr<Subprocess>> writers;
      for (int i = 0; i < kK; ++i) {
        writers.push_back(i == victim ? StartVictim(db, r, i, *point) : db.Start(i, r));
      }
      REQUIRE(writers[victim]->Wait().KilledBy(SIGKILL));
      writers[victim].reset();
      ExpectAllSucceed(writers);
      REQUIRE(Decided(db, db.version() + 1));
      if (victim == 0 && *point != "done") {
        db.ExpectUnchanged();  // readers look at writer 0's machine: still the old round
        db.ModelApplies(r.session);
      } else {
        db.ExpectAppliedForReaders(r);
      }
      testutil::RunAll(db, db.NextRound());
    }
  }
}

// Writer 1 dies having sent its section manifest to itself only, and its peers learn
// that it failed (its failure marker, written here as it would have): instead of giving
// up, they collect its manifest from its group, decide and commit.
// Issue 38: every writer of a round decides it and publishes it to the other machines;
// a machine that holds it already (a peer's copy: a decided round is the only one of its
// number) is not written again, else k writers would write k(k-1) copies of an
// O(k)-byte file each round. Writer 2 is killed before deciding, 0 and 1 commit and
// publish to every machine; writer 2 restarted rolls the round forward and rewrites none.
TEST_CASE("a writer rolling a round forward leaves the copies the machines hold", "[fault]") {
  FaultDb db(kDistwriter, kK, 53, 60000);
  const FaultDb::Round r = db.NextRound();
  std::vector<std::unique_ptr<Subprocess>> writers;
  writers.push_back(db.Start(0, r));
  writers.push_back(db.Start(1, r));
  writers.push_back(StartVictim(db, r, 2, "commit decide"));
  REQUIRE(writers[2]->Wait().KilledBy(SIGKILL));
  writers[2].reset();
  ExpectAllSucceed(writers);
  const uint64_t round = db.version() + 1;
  auto inode = [&](int machine) {
    struct stat st {};
    const std::string path = db.cluster().MetaDir(machine) + "/" + RoundFileName(round);
    INFO(path);
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_ino;
  };
  const std::vector<ino_t> before = {inode(0), inode(1), inode(2)};
  ExpectSuccess(*db.Start(2, r), 2);
  db.ExpectApplied(r);
  CHECK(std::vector<ino_t>{inode(0), inode(1), inode(2)} == before);
}

TEST_CASE("peers collect a failed writer's section manifest from its group", "[fault]") {
  FaultDb db(kDistwriter, kK, 54, 60000);
  const FaultDb::Round r = db.NextRound();
  std::vector<std::unique_ptr<Subprocess>> writers;
  writers.push_back(db.Start(0, r));
  writers.push_back(StartVictim(db, r, 1, "commit send 0"));
  writers.push_back(db.Start(2, r));
  REQUIRE(writers[1]->Wait().KilledBy(SIGKILL));
  writers[1].reset();
  const uint64_t round = db.version() + 1;
  const std::string dir = testutil::AwaitRoundDir(db.cluster().GroupDir(1), round);
  for (int peer : {0, 2}) testutil::AwaitFile(dir + "/s6/from-" + std::to_string(peer) + ".edits");
  for (int peer : {0, 2}) {
    const std::string failed =
        db.cluster().GroupDir(peer) + "/rounds/" + std::to_string(round) + "/failed";
    std::filesystem::create_directories(failed);
    testutil::WriteTextFile(failed + "/.from-1", "writer 1: simulated failure\n");
    std::filesystem::rename(failed + "/.from-1", failed + "/from-1");  // whole, as published
  }
  // Each peer collects and decides, or finds the round the other one decided meanwhile.
  std::string said;
  for (int peer : {0, 2}) said += ExpectSuccess(*writers[peer], peer).err;
  CHECK_THAT(said, Catch::Contains("collected the missing section manifests"));
  CHECK_THAT(said, Catch::Contains("writer 1 (machine m1) failed: writer 1: simulated"));
  db.ExpectAppliedForReaders(r);
  ExpectSuccess(*db.Start(1, r), 1);
  db.ExpectEveryMachineCurrent();
  testutil::RunAll(db, db.NextRound());
}

ProcessResult Launch(FaultDb& db, const testutil::Session& session,
                     const std::vector<std::string>& env = {}) {
  const std::string calls = db.cluster().WriteCallFile(0, session);
  return Subprocess::Start(
             {kDistwriter, "launch", "--config", db.cluster().config(), "--quiet", calls}, env,
             db.cluster().dir().File("launch-" + std::to_string(db.version())))
      ->Wait(std::chrono::seconds(120));
}

void ExpectLaunched(const ProcessResult& p) {
  INFO(p.Describe() << "\n" << p.out);
  REQUIRE(p.exit_code == 0);
}

// Under launch the other writers are stopped when writer 1 is killed, wherever they are
// in the commit. A rerun of the same launch, or a launch of the next calls, leaves every
// machine on one round, with the killed round applied exactly once if it was decided.
TEST_CASE("launch with writer 1 killed at each step of the commit, then launched again",
          "[fault]") {
  FaultDb db(kDistwriter, kK, 55, 60000, testutil::FaultSessions(30, 120));
  int n = 0;
  for (const std::string& point : CommitPoints(1)) {
    CAPTURE(point);
    const testutil::Session s = db.gen().Next();
    const ProcessResult killed = Launch(db, s, {"WEBDB_KILL_AT=" + point, "WEBDB_KILL_WRITER=1"});
    INFO(killed.Describe());
    REQUIRE(killed.exit_code == 4);
    CHECK_THAT(killed.err, Catch::Contains("writer 1 (machine m1) (killed by signal 9 (SIGKILL))"));
    const bool decided = Decided(db, db.version() + 1);
    if (n++ % 2 == 0) {
      // The same calls again: a decided round is found applied, an undecided one done.
      db.cluster().SetTimeoutMs(5000);
      ExpectLaunched(Launch(db, s));
      db.cluster().SetTimeoutMs(60000);
      db.ModelApplies(s);
    } else if (decided) {
      db.ModelApplies(s);
    }
    const testutil::Session next = db.gen().Next();
    ExpectLaunched(Launch(db, next));
    db.ModelApplies(next);
    db.ExpectUnchanged();
    db.ExpectEveryMachineCurrent();
  }
}

// Found by the [sweep][io] sweep: a writer whose machine never got the decided round
// (its decider could not publish it there) rolled it forward from another machine's
// copy and installed it, leaving CURRENT naming a round file its machine did not have.
TEST_CASE("a writer rolling forward a round its machine has no copy of writes the copy first",
          "[fault]") {
  testutil::DistCluster cluster(kDistwriter, 2, 60000);
  cluster.Create();
  testutil::GenOptions o;
  o.universe_urls = 20;
  o.hostile_bytes = false;
  testutil::SessionGenerator gen(8, o);
  std::mt19937_64 cuts(8);
  const std::vector<testutil::Session> slices = testutil::SplitSession(gen.Next(), 2, cuts);
  cluster.RunRound(slices);
  const std::string round = cluster.MetaDir(1) + "/" + RoundFileName(2);
  REQUIRE(std::filesystem::remove(round));
  std::ofstream(cluster.MetaDir(1) + "/CURRENT", std::ios::trunc) << RoundFileName(1) << "\n";
  ProcessResult rerun = cluster.StartWriter(1, cluster.WriteCallFile(1, slices[1]))->Wait();
  INFO(rerun.Describe());
  REQUIRE(rerun.exit_code == 0);
  CHECK(testutil::ParseRunReport(rerun.out).already_applied);
  CHECK(std::filesystem::exists(round));
  CHECK(testutil::ReadFileOrEmpty(cluster.MetaDir(1) + "/CURRENT") == RoundFileName(2) + "\n");
  CHECK(cluster.Committed(1) == cluster.Committed(0));
  CHECK(cluster.VerifyFindings() == "");
}

}  // namespace
}  // namespace distwriter
