// Replicated sections on one host (docs/DISTRIBUTED.md, "Replicas"): k = 3 writer
// processes with replicas = 2, each section held by its writer's machine and the next
// one's. Every copy is byte for byte the round's, rounds equal the single-machine writer,
// stats says where each section lives, and verify checks every copy: a damaged or missing
// copy at a replica is found and named, as is a machine that is no holder.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "distwriter/round_store.h"
#include "test/util/corrupt.h"
#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"

namespace distwriter {
namespace {

namespace fs = std::filesystem;
using testutil::Session;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
// The build that kills itself at the step WEBDB_KILL_AT names (test/killable/).
const std::string kKillable = PROJECT_BINARY_DIR "/test/killable/distwriter";
const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";
constexpr int kWriters = 3;

std::vector<Session> MakeSessions(uint64_t seed, size_t n) {
  return testutil::RoundSessions(seed, n, 50, 120, 20);
}


// Every file of the installed round's section of writer, read at each machine of its group.
void CheckCopiesIdentical(const testutil::DistCluster& cluster, const RoundManifest& round) {
  for (int i = 0; i < kWriters; ++i) {
    for (int t = 0; t < webdb::kNumTables; ++t) {
      const std::string name = SectionFile(round.sections[i], webdb::TableId(t)).name;
      const std::string home =
          testutil::ReadFileOrEmpty(cluster.GroupDirAt(i, i) + "/section/" + name);
      const std::string replica = testutil::ReadFileOrEmpty(
          cluster.GroupDirAt(i, (i + 1) % kWriters) + "/section/" + name);
      CAPTURE(i, name);
      CHECK_FALSE(home.empty());
      CHECK(home == replica);
    }
  }
}

TEST_CASE("replicas = 2: every section is on two machines, identical, and verified there",
          "[replicas]") {
  testutil::DistCluster cluster(kDistwriter, kWriters, 60000);
  cluster.SetGlobal("replicas", "2");
  cluster.Create();
  CheckCopiesIdentical(cluster, cluster.Committed());
  const std::vector<Session> sessions = MakeSessions(77, 2);
  std::mt19937_64 cuts(77);
  for (const Session& s : sessions) cluster.RunRound(testutil::SplitSession(s, kWriters, cuts));
  testutil::CheckDistDbMatchesSingle(cluster.config(), sessions);
  const RoundManifest round = cluster.Committed();
  for (int i = 0; i < kWriters; ++i) {
    CHECK(round.HoldersOf(i, "m" + std::to_string(i)) ==
          std::vector<std::string>{"m" + std::to_string(i), "m" + std::to_string((i + 1) % 3)});
  }
  CheckCopiesIdentical(cluster, round);
  CHECK(cluster.VerifyFindings() == "");

  const testutil::ProcessResult stats = testutil::RunProcess(
      {kWebdb, "stats", "--config", cluster.config(), "--quick"}, {}, cluster.dir().File("stats"));
  INFO(stats.Describe());
  CHECK(stats.exit_code == 0);
  CHECK_THAT(stats.out, Catch::Contains("\"sections\":[{\"writer\":0,\"machines\":[\"m0\",\"m1\"]},"
                                        "{\"writer\":1,\"machines\":[\"m1\",\"m2\"]},"
                                        "{\"writer\":2,\"machines\":[\"m2\",\"m0\"]}]"));

  // A damaged copy at a replica is found, and named by its path there; so is a lost one.
  const std::string links = SectionFile(round.sections[0], webdb::TableId::kLinksByUrl).name;
  const std::string damaged = cluster.GroupDirAt(0, 1) + "/section/" + links;
  testutil::FlipByte(damaged, fs::file_size(damaged) / 2);
  const std::string pages = SectionFile(round.sections[2], webdb::TableId::kPagesByUrl).name;
  const std::string lost = cluster.GroupDirAt(2, 0) + "/section/" + pages;
  fs::remove(lost);
  const std::string findings = cluster.VerifyFindings();
  CHECK_THAT(findings, Catch::Contains(damaged));
  CHECK_THAT(findings, Catch::Contains(lost));
  // The damage is at the replicas only: the db still reads whole from the homes.
  testutil::CheckDistDbMatchesSingle(cluster.config(), sessions);
}

// Starts writers 0 and 2 of a round, then writer 1, which kills itself in stage 3 (and
// is waited for). Returns the writers (1 empty) and sets *calls to writer 1's call file.
std::vector<std::unique_ptr<testutil::Subprocess>> StartWithWriterOneKilled(
    testutil::DistCluster& cluster, const std::vector<Session>& slices, std::string* calls) {
  std::vector<std::unique_ptr<testutil::Subprocess>> writers(kWriters);
  for (int i : {0, 2}) writers[i] = cluster.StartWriter(i, cluster.WriteCallFile(i, slices[i]));
  *calls = cluster.WriteCallFile(1, slices[1]);
  const testutil::ProcessResult killed =
      cluster.StartWriter(1, *calls, {"WEBDB_KILL_AT=stage 3"})->Wait();
  REQUIRE(killed.exit_code != 0);
  return writers;
}

TEST_CASE("a writer killed mid-round is taken over on its replica holder, which ends the round",
          "[replicas][takeover]") {
  testutil::DistCluster cluster(kKillable, kWriters, 60000);
  cluster.SetGlobal("replicas", "2");
  cluster.Create();
  const std::vector<Session> sessions = MakeSessions(79, 2);
  std::mt19937_64 cuts(79);
  cluster.RunRound(testutil::SplitSession(sessions[0], kWriters, cuts));

  // Round 2: writer 1 dies in stage 3 on m1; it is run again on m2 (its replica holder)
  // while its peers still wait, and the round ends as an undisturbed one would.
  const std::vector<Session> slices = testutil::SplitSession(sessions[1], kWriters, cuts);
  std::string calls;
  auto writers = StartWithWriterOneKilled(cluster, slices, &calls);
  const testutil::ProcessResult bad =
      cluster.StartWriter(1, calls, {}, {"--machine", "m0"})->Wait();
  CHECK(bad.exit_code == 3);
  CHECK_THAT(bad.err, Catch::Contains("--machine m0") && Catch::Contains("m1, m2"));
  writers[1] = cluster.StartWriter(1, calls, {}, {"--machine", "m2"});
  for (int i = 0; i < kWriters; ++i) {
    const testutil::ProcessResult r = writers[i]->Wait();
    INFO("writer " << i << ": " << r.Describe());
    CHECK(r.exit_code == 0);
  }
  testutil::CheckDistDbMatchesSingle(cluster.config(), sessions);
  CheckCopiesIdentical(cluster, cluster.Committed());
  CHECK(cluster.VerifyFindings() == "");
}

TEST_CASE("peers of a writer that died fail within leases, naming its writer and machine",
          "[replicas][lease]") {
  testutil::DistCluster cluster(kKillable, kWriters, 600000);
  cluster.SetGlobal("lock_lease_ms", "500");
  cluster.Create();
  std::mt19937_64 cuts(80);
  const std::vector<Session> slices = testutil::SplitSession(MakeSessions(80, 1)[0], kWriters, cuts);
  std::string calls;
  auto writers = StartWithWriterOneKilled(cluster, slices, &calls);
  // Not timeout_ms (10 minutes, past the Wait's deadline): the lease, unrenewed.
  for (int i : {0, 2}) {
    const testutil::ProcessResult r = writers[i]->Wait(std::chrono::seconds(120));
    INFO("writer " << i << ": " << r.Describe());
    CHECK(r.exit_code == 4);
    // Writer 0 may hear it first from writer 2's failure marker, which says why.
    CHECK_THAT(r.err, Catch::Contains("writer 1 (machine m1) lost its lease"));
  }
}

TEST_CASE("verify reports a machine of a section's group that is no holder of it",
          "[replicas]") {
  testutil::DistCluster cluster(kDistwriter, kWriters, 60000);
  cluster.SetGlobal("replicas", "2");
  cluster.Create();
  std::mt19937_64 cuts(78);
  cluster.RunRound(testutil::SplitSession(MakeSessions(78, 1)[0], kWriters, cuts));
  // The round as if machine m2 had been out of reach when writer 1 committed.
  RoundManifest round = cluster.Committed();
  round.SetHolders(1, {"m1"}, "m1");
  for (int m = 0; m < kWriters; ++m) {
    const std::string path = cluster.MetaDir(m) + "/" + RoundFileName(round.version);
    std::ofstream(path, std::ios::trunc) << round.Encode();
  }
  const std::string findings = cluster.VerifyFindings();
  CHECK_THAT(findings, Catch::Contains("missing replica: machine m2 holds no copy of writer 1 "
                                       "(machine m1)'s section of ROUND-000002") &&
                           Catch::Contains("the next round restores it"));
}

}  // namespace
}  // namespace distwriter
