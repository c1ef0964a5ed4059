// A hostile or broken peer (issue 10, item 6) with real writer processes: writer 0 comes
// back to find, under the name of writer 1's stage 1 file, a file of another attempt at
// the round, a replayed one from the round before, the one meant for writer 2, one with
// bytes past its footer, one whose footer miscounts its edits (more than it can hold, or
// fewer than it holds), or a symbolic link to a file outside the roots. It refuses it
// (exit 4, naming the file, the sender, what it expected and what it found) and removes
// it, its peers stop on its failure marker, nothing outside the roots is touched, the db
// is unchanged, and the same commands then commit the round.
#include <signal.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "distwriter/exchange_file.h"
#include "test/util/fault_db.h"
#include "test/util/hosts_config.h"

namespace distwriter {
namespace {

namespace fs = std::filesystem;
using testutil::FaultDb;
using testutil::ProcessResult;
using testutil::Subprocess;

// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kDistwriter = PROJECT_BINARY_DIR "/test/killable/distwriter";

// Starts round r with writer 0 killed as stage 1 begins; returns the running peers once
// their stage 1 files are in writer 0's group (rounds/<N>-<token>, returned in *dir).
std::vector<std::unique_ptr<Subprocess>> StopBeforeStageOne(FaultDb& db, const FaultDb::Round& r,
                                                            std::string* dir) {
  auto w0 = db.Start(0, r, {"WEBDB_KILL_AT=stage 1"});
  std::vector<std::unique_ptr<Subprocess>> peers;
  peers.push_back(db.Start(1, r));
  peers.push_back(db.Start(2, r));
  REQUIRE(w0->Wait().KilledBy(SIGKILL));
  *dir = testutil::AwaitRoundDir(db.cluster().GroupDir(0), db.version() + 1);
  for (int from : {1, 2}) testutil::AwaitFile(*dir + "/s1/from-" + std::to_string(from) + ".edits");
  return peers;
}

// Rewrites the file at path with the same edits and another label.
void Relabel(const std::string& path, const ExchangeId& id) {
  auto env = nutchfs::NewLocalEnv();
  auto in = webdb::OpenEditFile(*env, path);
  REQUIRE(in);
  const std::string tmp = path + ".forged";
  {
    auto out = CreateExchangeFile(*env, tmp, id, true);
    REQUIRE(out);
    for (; (*in)->Valid(); (*in)->Next()) REQUIRE((*out)->Add((*in)->edit()).ok());
    REQUIRE((*in)->status().ok());
    REQUIRE((*out)->Finish().ok());
  }
  fs::rename(tmp, path);
}

// Rewrites the record count in the footer of the edit file at path (its last 28 bytes).
void SetFooterCount(const std::string& path, uint64_t count) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(file);
  file.seekp(-28, std::ios::end);
  for (int i = 0; i < 8; ++i) file.put(static_cast<char>(count >> (8 * i)));
  REQUIRE(file.good());
}

ExchangeId LabelOf(const std::string& path) {
  auto env = nutchfs::NewLocalEnv();
  auto info = webdb::ReadEditFileInfo(*env, path);
  REQUIRE(info);
  auto id = ExchangeId::Parse(info->label);
  REQUIRE(id);
  return *id;
}

TEST_CASE("a file under another writer's name is refused, removed, and the round redone",
          "[fault]") {
  FaultDb db(kDistwriter, 3, 71, 60000, testutil::FaultSessions(100, 300));
  // A round whose stage 1 file from writer 1 to writer 0 is kept, for a replay.
  std::string dir;
  const FaultDb::Round before = db.NextRound();
  auto peers = StopBeforeStageOne(db, before, &dir);
  const std::string kept = db.cluster().dir().File("kept.edits");
  fs::copy_file(dir + "/s1/from-1.edits", kept);
  peers.push_back(db.Start(0, before));
  testutil::ExpectAllSucceed(peers);
  db.ExpectApplied(before);

  const FaultDb::Round r = db.NextRound();
  peers = StopBeforeStageOne(db, r, &dir);
  const std::string victim = dir + "/s1/from-1.edits";
  const ExchangeId genuine = LabelOf(victim);
  const std::string outside = db.cluster().dir().File("outside.edits");
  std::string says, outside_bytes;
  SECTION("a file of another attempt at the round") {
    ExchangeId forged = genuine;
    forged.token = "0000000000000000";
    Relabel(victim, forged);
    says = "it is of another attempt at round " + std::to_string(genuine.round) +
           " (token 0000000000000000, this one's is " + genuine.token + ")";
  }
  SECTION("a replayed file of the round before") {
    fs::copy_file(kept, victim, fs::copy_options::overwrite_existing);
    says = "it is a replayed file of round " + std::to_string(genuine.round - 1);
  }
  SECTION("the file meant for writer 2") {
    const std::string for_two = db.cluster().GroupDir(2) + "/rounds/" +
                                fs::path(dir).filename().string() + "/s1/from-1.edits";
    testutil::AwaitFile(for_two);
    fs::copy_file(for_two, victim, fs::copy_options::overwrite_existing);
    says = "it is meant for writer 2, not for writer 0";
  }
  SECTION("a file that kept growing") {
    std::ofstream(victim, std::ios::app) << "more bytes";
    says = "missing edit file footer";
  }
  // The footer's count, which no checksum covers: the stage plans by it before it reads
  // the file, and the file is checked against it.
  SECTION("a file whose footer claims more edits than it can hold") {
    SetFooterCount(victim, ~uint64_t{0});
    says = "footer record count 18446744073709551615 exceeds what its payload bytes can hold";
  }
  SECTION("a file whose footer claims fewer edits than it holds") {
    SetFooterCount(victim, 1);
    says = "footer record count 1 differs from";
  }
  SECTION("a symbolic link to a file outside the roots") {
    fs::copy_file(victim, outside);
    outside_bytes = testutil::ReadFileOrEmpty(outside);
    fs::remove(victim);
    fs::create_symlink(outside, victim);
    says = victim + " is a symbolic link below the NutchFS root";
  }
  CAPTURE(says);
  ProcessResult refused = db.Start(0, r)->Wait();
  INFO(refused.Describe());
  CHECK(refused.exit_code == 4);
  CHECK_THAT(refused.err, Catch::Contains("file from writer 1 (machine m1): " + victim));
  CHECK_THAT(refused.err, Catch::Contains(says));
  CHECK_FALSE(fs::exists(fs::symlink_status(victim)));  // removed: a rerun waits for a fresh copy
  for (auto& peer : peers) {
    ProcessResult stopped = peer->Wait();
    INFO(stopped.Describe());
    CHECK(stopped.exit_code == 4);
    CHECK_THAT(stopped.err, Catch::Contains("writer 0 (machine m0) failed: "));
  }
  if (!outside_bytes.empty()) CHECK(testutil::ReadFileOrEmpty(outside) == outside_bytes);
  db.ExpectUnchanged();
  testutil::RunAll(db, r);
}

}  // namespace
}  // namespace distwriter
