// Retained rounds of a distributed db (distwriter/round_versions.h), with real `distwriter
// run` processes: the db keeps its `keep` newest rounds readable (each reads as it was
// right after that round) and collects the others' files; a rollback makes a kept round
// current again as a new round, on every machine, after which rounds go on from it as a
// single-machine db fed the same sessions would; rollback and keep are refused, with
// nothing changed, while a writer holds its LOCK or a machine cannot be reached; a
// reader's pins keep a round's files past `keep` until it closes.
#include "distwriter/round_versions.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "distwriter/dist_reader.h"
#include "nutchfs/env.h"
#include "nutchfs/scoped_lock.h"
#include "test/util/corrupt.h"
#include "nutchfs/nutchfs.h"
#include "test/util/db_dump.h"
#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"

namespace distwriter {
namespace {

using testutil::DbDump;
using testutil::DistCluster;
using testutil::Session;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
constexpr int kK = 2;

DbDump DumpAt(const DistCluster& cluster, uint64_t version) {
  auto reader = OpenDistReader(cluster.config(), version);
  INFO("reading round " << version);
  REQUIRE(reader);
  auto dump = testutil::DumpDb(**reader);
  REQUIRE(dump);
  return *dump;
}

std::set<std::string> Names(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file()) names.insert(e.path().filename().string());
  }
  return names;
}

std::set<uint64_t> RoundFiles(const DistCluster& cluster, int machine) {
  std::set<uint64_t> versions;
  for (const std::string& name : Names(cluster.MetaDir(machine))) {
    if (auto v = ParseRoundFileName(name)) versions.insert(*v);
  }
  return versions;
}

// A db of kK writers keeping `keep` rounds, and the sessions its rounds applied.
struct TestDb {
  explicit TestDb(uint32_t keep) : cluster(kDistwriter, kK, 60000), gen(7, Options()) {
    cluster.Create();
    auto set = SetDistKeep(cluster.LoadConfig(), keep, nullptr);
    REQUIRE(set);
    REQUIRE(*set == 2);
  }

  static testutil::GenOptions Options() {
    testutil::GenOptions o;
    o.universe_urls = 40;
    o.hostile_bytes = false;
    return o;
  }

  // One round of a new session; returns the dump right after it.
  DbDump Round() {
    sessions.push_back(gen.Next());
    cluster.RunRound(testutil::SplitSession(sessions.back(), kK, cuts));
    return cluster.Dump();
  }

  DistCluster cluster;
  testutil::SessionGenerator gen;
  std::mt19937_64 cuts{3};
  std::vector<Session> sessions;
};

}  // namespace

TEST_CASE("round versions: the db keeps its newest rounds readable and collects the others",
          "[distwriter][versions]") {
  TestDb db(3);
  std::vector<DbDump> after;  // after[i]: right after round 3 + i
  for (int i = 0; i < 4; ++i) after.push_back(db.Round());
  REQUIRE(db.cluster.Committed().version == 6);
  REQUIRE(db.cluster.Committed().keep == 3);
  for (uint64_t v = 4; v <= 6; ++v) REQUIRE(testutil::CompareDumps(after[v - 3], DumpAt(db.cluster, v)) == "");
  auto gone = OpenDistReader(db.cluster.config(), uint64_t{3});
  REQUIRE_FALSE(gone);
  REQUIRE(gone.error().IsNotFound());
  REQUIRE_THAT(gone.error().message(), Catch::Contains("round 3 is not kept") &&
                                           Catch::Contains("rounds 6, 5 and 4"));
  for (int m = 0; m < kK; ++m) REQUIRE(RoundFiles(db.cluster, m) == std::set<uint64_t>{4, 5, 6});
  // Every section holds the files of the kept rounds and no other: verify looks.
  REQUIRE(db.cluster.VerifyFindings() == "");
  auto list = ListRounds(db.cluster.LoadConfig());
  REQUIRE(list);
  REQUIRE(list->keep == 3);
  REQUIRE(list->versions.size() == 3);
  REQUIRE(list->versions[0].version == 6);
  REQUIRE(list->versions[0].current);
  REQUIRE(list->versions[2].version == 4);
  REQUIRE_FALSE(list->versions[2].current);
  REQUIRE(list->versions[1].pages == after[2].num_pages);
  // A round's time is its last section's: every writer's copy says the same.
  REQUIRE(list->versions[2].time_ms > 0);
  REQUIRE(list->versions[0].time_ms >= list->versions[2].time_ms);
  for (int m = 1; m < kK; ++m) REQUIRE(db.cluster.Committed(m) == db.cluster.Committed(0));

  // Keeping fewer: the next round's clean-up removes what is no longer kept.
  REQUIRE(SetDistKeep(db.cluster.LoadConfig(), 1, nullptr) == uint64_t{7});
  db.Round();
  for (int m = 0; m < kK; ++m) REQUIRE(RoundFiles(db.cluster, m) == std::set<uint64_t>{8});
  REQUIRE(db.cluster.VerifyFindings() == "");
}

TEST_CASE("round versions: rollback makes a kept round current again as a new round",
          "[distwriter][versions]") {
  TestDb db(3);
  db.Round();                           // 3
  const DbDump at_four = db.Round();    // 4
  db.Round();                           // 5
  auto rolled = RollbackDistDb(db.cluster.LoadConfig(), 4, nullptr);
  REQUIRE(rolled);
  REQUIRE(rolled->done);
  REQUIRE(rolled->version == 6);
  for (int m = 0; m < kK; ++m) {
    const RoundManifest installed = db.cluster.Committed(m);
    REQUIRE(installed.version == 6);
    REQUIRE(installed.restores == 4);
    REQUIRE(installed.keep == 3);
  }
  REQUIRE(testutil::CompareDumps(at_four, db.cluster.Dump()) == "");
  REQUIRE(db.cluster.VerifyFindings() == "");
  // Done already: nothing to do.
  auto again = RollbackDistDb(db.cluster.LoadConfig(), 4, nullptr);
  REQUIRE(again);
  REQUIRE_FALSE(again->done);
  REQUIRE(again->version == 6);
  // A round not kept is refused.
  auto old = RollbackDistDb(db.cluster.LoadConfig(), 3, nullptr);
  REQUIRE_FALSE(old);
  REQUIRE(old.error().IsNotFound());
  // Rounds go on from round 4: the db is what one machine makes of the sessions of
  // rounds 3 and 4 and the next one.
  db.sessions.erase(db.sessions.begin() + 2);
  db.Round();
  REQUIRE(db.cluster.Committed().version == 7);
  REQUIRE(db.cluster.Committed().restores == 0);
  testutil::CheckDistDbMatchesSingle(db.cluster.config(), db.sessions);
  REQUIRE(db.cluster.VerifyFindings() == "");
}

TEST_CASE("round versions: rollback and keep are refused while a writer holds its LOCK",
          "[distwriter][versions]") {
  TestDb db(4);
  db.Round();
  const DbDump before = db.Round();
  const DistConfig config = db.cluster.LoadConfig();
  auto fs = nutchfs::NutchFs::Open(config.cluster, config.writer_machines[1]);
  REQUIRE(fs);
  auto lock = (*fs)->TakeLease(config.WriterFile(1, "LOCK"), false);
  REQUIRE(lock);
  auto rolled = RollbackDistDb(db.cluster.LoadConfig(), 3, nullptr);
  REQUIRE_FALSE(rolled);
  REQUIRE(rolled.error().IsBusy());
  REQUIRE_THAT(rolled.error().message(),
               Catch::Contains("rollback refused") && Catch::Contains("writer 1"));
  auto kept = SetDistKeep(db.cluster.LoadConfig(), 5, nullptr);
  REQUIRE_FALSE(kept);
  REQUIRE(kept.error().IsBusy());
  for (int m = 0; m < kK; ++m) REQUIRE(db.cluster.Committed(m).version == 4);
  // The leases it took before it met writer 1's are released.
  auto first = (*fs)->ReadLease(config.WriterFile(0, "LOCK"));
  REQUIRE(first);
  REQUIRE(first->has_value());
  REQUIRE((*first)->released);
  REQUIRE((*lock)->Release().ok());
  REQUIRE(testutil::CompareDumps(before, db.cluster.Dump()) == "");
  REQUIRE(RollbackDistDb(db.cluster.LoadConfig(), 3, nullptr));
}

TEST_CASE("round versions: rollback is refused, naming it, when a machine cannot be reached",
          "[distwriter][versions]") {
  TestDb db(4);
  db.Round();
  db.Round();
  // Machine m1 moved to an ssh location where nothing listens (a machine that is down).
  const std::string path = db.cluster.config();
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string root = db.cluster.dir().path() + "/m1";
  const std::string down = std::regex_replace(
      text, std::regex("location = " + root), "location = 127.0.0.1:1:" + root);
  REQUIRE(down != text);
  const std::string down_path = db.cluster.dir().File("down.conf");
  std::ofstream(down_path) << down;
  auto config = DistConfig::Load(down_path);
  REQUIRE(config);
  auto rolled = RollbackDistDb(*config, 3, nullptr);
  REQUIRE_FALSE(rolled);
  REQUIRE_THAT(rolled.error().message(),
               Catch::Contains("rollback refused") && Catch::Contains("m1"));
  for (int m = 0; m < kK; ++m) {
    REQUIRE(db.cluster.Committed(m).version == 4);
    REQUIRE(RoundFiles(db.cluster, m).count(5) == 0);
  }
  // The leases it took before it met m1 are released.
  const DistConfig up = db.cluster.LoadConfig();
  auto fs = nutchfs::NutchFs::Open(up.cluster, up.writer_machines[0]);
  REQUIRE(fs);
  auto lease = (*fs)->ReadLease(up.WriterFile(0, "LOCK"));
  REQUIRE(lease);
  REQUIRE((!lease->has_value() || (*lease)->released));
}

TEST_CASE("round versions: rollback to a round whose section file is damaged is refused, "
          "naming it",
          "[distwriter][versions][fault]") {
  TestDb db(4);
  db.Round();
  const RoundManifest three = db.cluster.Committed();
  db.Round();
  // The largest section file of round 3 that round 4 does not name as well.
  std::string path;
  uint64_t size = 0;
  for (int i = 0; i < kK; ++i) {
    for (int t = 0; t < webdb::kNumTables; ++t) {
      const webdb::TableFile& f = SectionFile(three.sections[i], static_cast<webdb::TableId>(t));
      if (db.cluster.Committed().sections[i].NamesTableFile(f.name) || f.size <= size) continue;
      path = db.cluster.GroupDir(i) + "/section/" + f.name;
      size = f.size;
    }
  }
  REQUIRE(size > 200);
  testutil::FlipByte(path, size / 4);
  auto rolled = RollbackDistDb(db.cluster.LoadConfig(), 3, nullptr);
  REQUIRE_FALSE(rolled);
  CHECK(rolled.error().IsCorruption());
  CHECK_THAT(rolled.error().message(), Catch::Contains("rollback refused") &&
                                           Catch::Contains(path) && Catch::Contains("file CRC32C"));
  for (int m = 0; m < kK; ++m) {
    REQUIRE(db.cluster.Committed(m).version == 4);
    REQUIRE(RoundFiles(db.cluster, m).count(5) == 0);
  }
  // The command exits 3 (damage found), as verify does.
  testutil::ProcessResult r = testutil::RunProcess(
      {PROJECT_BINARY_DIR "/tools/webdb", "rollback", "--config", db.cluster.config(), "3"}, {},
      db.cluster.dir().File("rollback"));
  INFO(r.Describe());
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains(path));
}

TEST_CASE("round versions: a rollback cut short on some machines is finished by running it "
          "again",
          "[distwriter][versions]") {
  TestDb db(3);
  db.Round();
  const DbDump at_three = db.cluster.Dump();
  db.Round();
  struct Cut {};
  auto cut = [](std::string_view step) {
    if (step == "install m1") throw Cut{};
  };
  REQUIRE_THROWS_AS(RollbackDistDb(db.cluster.LoadConfig(), 3, cut), Cut);
  REQUIRE(db.cluster.Committed(0).version == 5);  // installed on m0 only
  REQUIRE(db.cluster.Committed(1).version == 4);
  auto rolled = RollbackDistDb(db.cluster.LoadConfig(), 3, nullptr);
  REQUIRE(rolled);
  REQUIRE_FALSE(rolled->done);  // round 5 is that rollback: installed everywhere now
  for (int m = 0; m < kK; ++m) REQUIRE(db.cluster.Committed(m).version == 5);
  REQUIRE(testutil::CompareDumps(at_three, db.cluster.Dump()) == "");
  REQUIRE(db.cluster.VerifyFindings() == "");
}

TEST_CASE("round versions: keep and rollback roll forward a round decided but installed nowhere",
          "[distwriter][versions]") {
  TestDb db(4);
  const DbDump at_three = db.Round();
  // Round 3 decided (every machine has ROUND-000003), its writers stopped before any
  // installed it.
  for (int m = 0; m < kK; ++m) {
    std::ofstream(db.cluster.MetaDir(m) + "/CURRENT", std::ios::trunc) << RoundFileName(2) << "\n";
  }
  auto kept = SetDistKeep(db.cluster.LoadConfig(), 5, nullptr);
  REQUIRE(kept);
  REQUIRE(*kept == 4);  // round 3 first, then the keep change
  for (int m = 0; m < kK; ++m) REQUIRE(db.cluster.Committed(m).version == 4);
  REQUIRE(testutil::CompareDumps(at_three, db.cluster.Dump()) == "");
  REQUIRE(testutil::CompareDumps(at_three, DumpAt(db.cluster, 3)) == "");
  REQUIRE(db.cluster.VerifyFindings() == "");
}

TEST_CASE("round versions: a reader's pins keep its round's files past keep until it closes",
          "[distwriter][versions]") {
  TestDb db(1);
  const DbDump at_three = db.Round();
  auto reader = OpenDistReader(db.cluster.config(), std::nullopt);
  REQUIRE(reader);
  db.Round();
  db.Round();
  // Round 3 is not kept, but its reader still reads it whole.
  auto dump = testutil::DumpDb(**reader);
  REQUIRE(dump);
  REQUIRE(testutil::CompareDumps(at_three, *dump) == "");
  auto list = ListRounds(db.cluster.LoadConfig());
  REQUIRE(list);
  REQUIRE(list->versions.size() == 1);
  REQUIRE(RoundFiles(db.cluster, 0).count(3) == 1);
  reader->reset();
  db.Round();
  for (int m = 0; m < kK; ++m) REQUIRE(RoundFiles(db.cluster, m) == std::set<uint64_t>{6});
  REQUIRE(db.cluster.VerifyFindings() == "");
}

}  // namespace distwriter
