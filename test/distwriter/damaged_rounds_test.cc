// A distributed db whose kept, non-current round manifests are damaged (issue 36): a
// damaged copy on one machine fails neither the next round nor the readers (another
// machine's copy serves, with a warning), and verify names it; a round damaged on every
// machine keeps its files (they are not known) without stopping anything, verify names
// each copy and calls no kept file left over, and `drop-version --config` drops it. The
// files a failed round keeps on purpose (docs/DISTRIBUTED.md, "Restart") are not left
// over either.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "distwriter/round_store.h"
#include "distwriter/round_versions.h"
#include "test/util/corrupt.h"
#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"

namespace distwriter {
namespace {

using testutil::DistCluster;
using testutil::ProcessResult;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";
constexpr int kK = 3;

// A db of three writers keeping 3 rounds: round 2 is the keep change, 3 and 4 rounds of
// generated sessions.
struct TestDb {
  TestDb() : cluster(kDistwriter, kK, 60000), gen(17, Options()) {
    cluster.Create();
    REQUIRE(SetDistKeep(cluster.LoadConfig(), 3, nullptr) == uint64_t{2});
    Round();
    Round();
  }
  static testutil::GenOptions Options() {
    testutil::GenOptions o;
    o.universe_urls = 40;
    o.hostile_bytes = false;
    return o;
  }
  void Round() { cluster.RunRound(testutil::SplitSession(gen.Next(), kK, cuts)); }
  std::string RoundFile(int machine, uint64_t version) const {
    return cluster.MetaDir(machine) + "/" + RoundFileName(version);
  }
  void Damage(int machine, uint64_t version) const {
    const std::string path = RoundFile(machine, version);
    testutil::FlipByte(path, std::filesystem::file_size(path) / 2);
  }
  ProcessResult Webdb(std::vector<std::string> args) {
    args.insert(args.begin(), kWebdb);
    return testutil::RunProcess(args, {}, cluster.dir().File("webdb" + std::to_string(runs++)));
  }

  DistCluster cluster;
  testutil::SessionGenerator gen;
  std::mt19937_64 cuts{5};
  int runs = 0;
};

TEST_CASE("damaged rounds: a damaged copy of a kept round on one machine fails neither the "
          "next round nor the readers",
          "[distwriter][versions][fault]") {
  TestDb db;
  REQUIRE(db.cluster.Committed().version == 4);
  db.Damage(1, 3);
  db.Round();  // every writer exits 0
  for (int m = 0; m < kK; ++m) REQUIRE(db.cluster.Committed(m).version == 5);
  db.Damage(0, 4);  // at the meta group's view, which readers read
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"stats", "--config", db.cluster.config(), "--quick"},
           {"versions", "--config", db.cluster.config()},
           {"dump", "--config", db.cluster.config(), "--table", "pagesByURL", "--version", "4"}}) {
    ProcessResult r = db.Webdb(args);
    INFO(r.Describe());
    CHECK(r.exit_code == 0);
  }
  auto list = ListRounds(db.cluster.LoadConfig());
  REQUIRE(list);
  REQUIRE(list->versions.size() == 3);
  CHECK(list->versions[1].damaged.empty());
  const std::string findings = db.cluster.VerifyFindings();
  INFO(findings);
  CHECK_THAT(findings, Catch::Contains(db.RoundFile(1, 3) + ": ") &&
                           Catch::Contains(db.RoundFile(0, 4) + ": "));
  CHECK(findings.find("left over") == std::string::npos);
  ProcessResult verify = db.Webdb({"verify", "--config", db.cluster.config()});
  CHECK(verify.exit_code == 3);
  db.Round();
  for (int m = 0; m < kK; ++m) REQUIRE(db.cluster.Committed(m).version == 6);
}

TEST_CASE("damaged rounds: a kept round damaged on every machine stops nothing, keeps its "
          "files, and drop-version --config drops it",
          "[distwriter][versions][fault]") {
  TestDb db;
  for (int m = 0; m < kK; ++m) db.Damage(m, 3);
  auto list = ListRounds(db.cluster.LoadConfig());
  REQUIRE(list);
  REQUIRE(list->versions.size() == 3);
  CHECK_THAT(list->versions[1].damaged, Catch::Contains(RoundFileName(3)));
  std::string findings = db.cluster.VerifyFindings();
  INFO(findings);
  for (int m = 0; m < kK; ++m) CHECK_THAT(findings, Catch::Contains(db.RoundFile(m, 3) + ": "));
  // Round 2, kept, is not left over, nor are the section files only round 3 may name.
  CHECK(findings.find("left over") == std::string::npos);
  db.Round();
  for (int m = 0; m < kK; ++m) REQUIRE(db.cluster.Committed(m).version == 5);
  ProcessResult current = db.Webdb({"drop-version", "--config", db.cluster.config(), "5"});
  CHECK(current.exit_code == 3);
  ProcessResult dropped = db.Webdb({"drop-version", "--config", db.cluster.config(), "3"});
  INFO(dropped.Describe());
  REQUIRE(dropped.exit_code == 0);
  for (int m = 0; m < kK; ++m) CHECK_FALSE(std::filesystem::exists(db.RoundFile(m, 3)));
  CHECK(db.cluster.VerifyFindings() == "");
  CHECK(db.Webdb({"drop-version", "--config", db.cluster.config(), "3"}).exit_code == 4);
}

TEST_CASE("damaged rounds: verify --config does not call what a failed round keeps left over",
          "[distwriter][verify]") {
  TestDb db;
  // A failed round 5: writer 1 wrote its section files and kept them (a peer may decide
  // the round with them); round 5 was decided on machine 2 and installed nowhere.
  const RoundManifest four = db.cluster.Committed();
  const std::string kept = db.cluster.GroupDir(1) + "/section/pagesByURL-000005.tbl";
  std::ofstream(kept) << "a section file of the failed round";
  RoundManifest five = four;
  five.version = 5;
  std::ofstream(db.RoundFile(2, 5)) << five.Encode();
  CHECK(db.cluster.VerifyFindings() == "");
  // A file of no round that can still come is left over.
  const std::string stray = db.cluster.GroupDir(1) + "/section/pagesByURL-000009.tbl";
  std::ofstream(stray) << "left over";
  CHECK_THAT(db.cluster.VerifyFindings(), Catch::Contains(stray + ": left over"));
}

}  // namespace
}  // namespace distwriter
