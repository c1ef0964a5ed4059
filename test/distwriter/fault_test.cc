// The distributed writer under faults, with real processes (docs/DISTRIBUTED.md,
// "Restart" and "A round"): a writer killed at every step or at random moments and
// restarted while its peers wait, a writer that never starts, a corrupted exchange file,
// a second run of the same writer, and a rerun after commit. After each, the db is either
// unchanged or equal to the single-machine db fed the same calls.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <limits>
#include <thread>

#include "test/util/corrupt.h"
#include "test/util/fault_db.h"
#include "test/util/hosts_config.h"
#include "webdb/sort/edit_file.h"

namespace distwriter {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using testutil::DistCluster;
using testutil::ProcessResult;
using testutil::Session;
using testutil::Subprocess;

// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kDistwriter = PROJECT_BINARY_DIR "/test/killable/distwriter";

using testutil::AwaitFile;
using testutil::AwaitRoundDir;
using testutil::ExpectAllSucceed;
using testutil::ExpectSuccess;
using testutil::RunAll;

testutil::GenOptions Sessions(size_t min_calls, size_t max_calls) {
  return testutil::FaultSessions(min_calls, max_calls);
}

// A FaultDb of the distwriter binary.
class FaultDb : public testutil::FaultDb {
 public:
  FaultDb(int k, uint64_t seed, int timeout_ms, testutil::GenOptions gen = Sessions(50, 300))
      : testutil::FaultDb(kDistwriter, k, seed, timeout_ms, gen) {}
};

const char* const kSteps[] = {"stage 0", "stage 1", "stage 2", "stage 3",
                              "stage 4", "stage 5", "commit"};

TEST_CASE("a writer killed at each step and restarted completes the round", "[fault]") {
  FaultDb db(3, 11, 60000);
  for (int n = 0; n < static_cast<int>(std::size(kSteps)); ++n) {
    const int victim = n % 3;
    CAPTURE(kSteps[n], victim);
    const FaultDb::Round r = db.NextRound();
    std::vector<std::unique_ptr<Subprocess>> writers;
    for (int i = 0; i < 3; ++i) {
      writers.push_back(
          db.Start(i, r,
                   i == victim ? std::vector<std::string>{std::string("WEBDB_KILL_AT=") + kSteps[n]}
                               : std::vector<std::string>{}));
    }
    ProcessResult killed = writers[victim]->Wait();
    INFO(killed.Describe());
    REQUIRE(killed.KilledBy(SIGKILL));
    for (int i = 0; i < 3; ++i) {
      if (i != victim) REQUIRE_FALSE(writers[i]->Finished());  // waiting for the victim
    }
    writers[victim] = db.Start(victim, r);
    ExpectAllSucceed(writers);
    db.ExpectApplied(r);
  }
}

TEST_CASE("a writer killed after its commit finds the round applied when restarted", "[fault]") {
  constexpr int kTimeoutMs = 60000;
  FaultDb db(3, 20, kTimeoutMs);
  const FaultDb::Round r = db.NextRound();
  std::vector<std::unique_ptr<Subprocess>> writers;
  for (int i = 0; i < 3; ++i) {
    writers.push_back(db.Start(
        i, r,
        i == 2 ? std::vector<std::string>{"WEBDB_KILL_AT=done"} : std::vector<std::string>{}));
  }
  REQUIRE(writers[2]->Wait().KilledBy(SIGKILL));  // committed, not cleaned up
  writers[2].reset();
  ExpectAllSucceed(writers);
  db.ExpectApplied(r);
  const auto start = std::chrono::steady_clock::now();
  ProcessResult res = ExpectSuccess(*db.Start(2, r), 2);
  const testutil::RunReport report = testutil::ParseRunReport(res.out);
  CHECK(report.already_applied);
  CHECK(report.version == db.version());
  // Found at once, not by waiting out timeout_ms for peers that will never come.
  CHECK(std::chrono::steady_clock::now() - start < milliseconds(kTimeoutMs));
  RunAll(db, db.NextRound());  // its clean-up is done; the next round runs normally
}

TEST_CASE("a writer killed twice in one round, then restarted, completes it", "[fault]") {
  FaultDb db(3, 12, 60000);
  const FaultDb::Round r = db.NextRound();
  std::vector<std::unique_ptr<Subprocess>> writers;
  writers.push_back(db.Start(0, r));
  writers.push_back(db.Start(1, r, {"WEBDB_KILL_AT=stage 2"}));
  writers.push_back(db.Start(2, r));
  REQUIRE(writers[1]->Wait().KilledBy(SIGKILL));
  writers[1] = db.Start(1, r, {"WEBDB_KILL_AT=stage 5"});
  REQUIRE(writers[1]->Wait().KilledBy(SIGKILL));
  writers[1] = db.Start(1, r);
  ExpectAllSucceed(writers);
  db.ExpectApplied(r);
}

TEST_CASE("a writer killed at a random moment and restarted completes the round", "[fault]") {
  FaultDb db(3, 13, 60000, Sessions(1500, 2500));
  const std::vector<std::string> flags = {"--memory", "1M"};
  // The length of an undisturbed round (the shorter of two), to spread the kills over
  // its first two thirds.
  int64_t round_ms = std::numeric_limits<int64_t>::max();
  for (int n = 0; n < 2; ++n) {
    const auto start = std::chrono::steady_clock::now();
    RunAll(db, db.NextRound(), flags);
    const auto took = std::chrono::steady_clock::now() - start;
    round_ms = std::min<int64_t>(round_ms, std::chrono::duration_cast<milliseconds>(took).count());
  }
  // How many kills hit a running writer depends on the machine's speed at that moment,
  // so the delays shrink whenever one came too late, until kWanted kills have hit (a slow
  // machine only makes that easier).
  constexpr int kWanted = 4, kMaxKills = 16;
  std::vector<std::unique_ptr<Subprocess>> writers;
  int kills = 0;
  for (int n = 1; n <= kMaxKills && kills < kWanted; ++n) {
    const int victim = n % 3;
    const milliseconds after(round_ms * (n % 8 + 1) / 12);
    CAPTURE(victim, after.count(), round_ms);
    const FaultDb::Round r = db.NextRound();
    writers.clear();
    for (int i = 0; i < 3; ++i) writers.push_back(db.Start(i, r, {}, flags));
    std::this_thread::sleep_for(after);
    writers[victim]->Kill(SIGKILL);
    ProcessResult killed = writers[victim]->Wait();
    if (killed.KilledBy(SIGKILL)) {
      ++kills;
      writers[victim] = db.Start(victim, r, {}, flags);
    } else {
      INFO(killed.Describe());
      REQUIRE(killed.exit_code == 0);  // it had finished
      writers[victim].reset();
      round_ms = after.count() * 3 / 4;
    }
    ExpectAllSucceed(writers);
    db.ExpectApplied(r);
  }
  WARN("timed kills: " << kills << " hit a running writer");
  CHECK(kills >= kWanted);
}

TEST_CASE("writers whose peer never starts time out, and the db is unchanged", "[fault]") {
  FaultDb db(3, 14, 60000);
  RunAll(db, db.NextRound());
  db.cluster().SetTimeoutMs(1500);
  const FaultDb::Round r = db.NextRound();
  const std::string round = std::to_string(db.version() + 1);
  auto w0 = db.Start(0, r), w2 = db.Start(2, r);
  for (Subprocess* w : {w0.get(), w2.get()}) {
    ProcessResult res = w->Wait();
    INFO(res.Describe());
    CHECK(res.exit_code == 4);
    CHECK_THAT(res.err, Catch::Contains("timed out after"));
    CHECK_THAT(res.err, Catch::Contains("writer 1 (machine m1)"));
    CHECK_THAT(res.err, Catch::Contains("rounds/" + round + "/s0/from-1.edits"));
    CHECK_THAT(res.err, Catch::Contains("stage 0"));
  }
  db.ExpectUnchanged();
  db.cluster().SetTimeoutMs(60000);
  for (int i = 0; i < 3; ++i) REQUIRE(db.cluster().Committed(i).version == db.version());
  RunAll(db, r);
}

TEST_CASE("writers whose peer dies in stage 3 time out there, and a rerun succeeds", "[fault]") {
  FaultDb db(3, 15, 2500);
  const FaultDb::Round r = db.NextRound();
  std::vector<std::unique_ptr<Subprocess>> writers;
  for (int i = 0; i < 3; ++i) {
    writers.push_back(db.Start(
        i, r,
        i == 1 ? std::vector<std::string>{"WEBDB_KILL_AT=stage 3"} : std::vector<std::string>{}));
  }
  REQUIRE(writers[1]->Wait().KilledBy(SIGKILL));
  for (int i : {0, 2}) {
    ProcessResult res = writers[i]->Wait();
    INFO(res.Describe());
    CHECK(res.exit_code == 4);
    CHECK_THAT(res.err, Catch::Contains("timed out after"));
    CHECK_THAT(res.err, Catch::Contains("stage 3"));
    CHECK_THAT(res.err, Catch::Contains("/s3/from-1.edits"));
    CHECK_THAT(res.err, Catch::Contains("writer 1 (machine m1)"));
  }
  db.ExpectUnchanged();
  db.cluster().SetTimeoutMs(60000);
  RunAll(db, r);
}

// Pages for every section: writer 1 adds 300 pages, writers 0 and 2 a few.
FaultDb::Round ManyPagesFromWriterOne(FaultDb& db) {
  Session s;
  for (int i = 0; i < 310; ++i) {
    webdb::Page p;
    p.url = "http://c.example/" + std::to_string(i * 7919 % 1000);
    p.md5 = webdb::Md5Of(p.url);
    s.push_back(testutil::AddPageCall(p));
  }
  FaultDb::Round r = db.Prepare(s);
  r.slices = {Session(s.begin(), s.begin() + 5), Session(s.begin() + 5, s.end() - 5),
              Session(s.end() - 5, s.end())};
  r.files.clear();
  for (int i = 0; i < 3; ++i) r.files.push_back(db.cluster().WriteCallFile(i, r.slices[i]));
  return r;
}

TEST_CASE("a corrupted exchange file fails its receiver with Corruption naming it", "[fault]") {
  FaultDb db(3, 16, 3000);
  const FaultDb::Round r = ManyPagesFromWriterOne(db);
  // Writer 0 dies as stage 1 begins; writers 1 and 2 publish their stage 1 files into its
  // group and wait for its own. One of those is damaged before writer 0 comes back.
  auto w0 = db.Start(0, r, {"WEBDB_KILL_AT=stage 1"});
  auto w1 = db.Start(1, r), w2 = db.Start(2, r);
  REQUIRE(w0->Wait().KilledBy(SIGKILL));
  const std::string dir = AwaitRoundDir(db.cluster().GroupDir(0), db.version() + 1);
  const std::string victim = dir + "/s1/from-1.edits";
  AwaitFile(victim);
  AwaitFile(dir + "/s1/from-2.edits");
  const uint64_t size = fs::file_size(victim);
  REQUIRE(size > 100);  // holds a frame of edits, not just header and footer
  std::string expected_error;
  SECTION("a flipped byte") {
    // The first frame follows the header and its label (docs/FORMAT.md, "Edit files").
    auto env = nutchfs::NewLocalEnv();
    auto info = webdb::ReadEditFileInfo(*env, victim);
    REQUIRE(info);
    const uint64_t frame = 16 + 4 + info->label.size();
    testutil::FlipByte(victim, frame + 14);  // in the first frame's payload
    expected_error = victim + ": frame checksum mismatch at offset " + std::to_string(frame);
  }
  SECTION("a truncated file") {
    testutil::TruncateFile(victim, 10);  // not even a whole header
    expected_error = victim + ": ";
  }
  w0 = db.Start(0, r);
  ProcessResult res = w0->Wait();
  INFO(res.Describe());
  CHECK(res.exit_code == 4);
  CHECK_THAT(res.err, Catch::Contains(expected_error));
  CHECK_THAT(res.err, Catch::Contains("offset"));
  CHECK_FALSE(fs::exists(victim));  // discarded: a rerun waits for a fresh copy
  for (Subprocess* w : {w1.get(), w2.get()}) {
    ProcessResult peer = w->Wait();
    INFO(peer.Describe());
    CHECK(peer.exit_code == 4);  // waited in vain for writer 0's stage 2 file
  }
  db.ExpectUnchanged();
  for (int i = 0; i < 3; ++i) REQUIRE(db.cluster().Committed(i).version == db.version());
  db.cluster().SetTimeoutMs(60000);
  // The same commands again redo the round: the senders publish fresh copies.
  RunAll(db, r);
}

TEST_CASE("a second run of a writer while it runs is refused", "[fault]") {
  FaultDb db(3, 17, 60000);
  const FaultDb::Round r = db.NextRound();
  auto first = db.Start(0, r);
  AwaitFile(db.cluster().GroupDir(0) + "/work");  // made once the lease is taken
  ProcessResult second = db.Start(0, r)->Wait();
  INFO(second.Describe());
  CHECK(second.exit_code == 4);
  CHECK_THAT(second.err, Catch::Contains("LOCK"));
  CHECK_THAT(second.err, Catch::Contains("held by live"));
  REQUIRE_FALSE(first->Finished());
  auto w1 = db.Start(1, r), w2 = db.Start(2, r);
  ExpectSuccess(*first, 0);
  ExpectSuccess(*w1, 1);
  ExpectSuccess(*w2, 2);
  db.ExpectApplied(r);
}

// Without --session: the calls the installed round applied for a writer are that round's,
// so a writer run again with them (alone, as after a kill past its commit and clean-up,
// or all k) reports them applied at once instead of waiting timeout_ms for peers.
TEST_CASE("rerunning writers after their round committed reports already_applied", "[fault]") {
  FaultDb db(3, 18, 600000);  // a wait that ran out would outlast the test
  FaultDb::Round r;
  for (int i = 0; i < 3; ++i) {
    r.slices.push_back(db.gen().Next());  // calls for every writer: none is ambiguous
    REQUIRE_FALSE(r.slices.back().empty());
    r.files.push_back(db.cluster().WriteCallFile(i, r.slices.back()));
    r.session.insert(r.session.end(), r.slices.back().begin(), r.slices.back().end());
  }
  RunAll(db, r);
  for (int alone : {0, -1}) {
    CAPTURE(alone);
    std::vector<std::unique_ptr<Subprocess>> writers;
    for (int i = 0; i < 3; ++i) {
      if (alone < 0 || i == alone) writers.push_back(db.Start(i, r));
    }
    for (auto& w : writers) {
      ProcessResult res = w->Wait();
      INFO(res.Describe());
      REQUIRE(res.exit_code == 0);
      testutil::RunReport report = testutil::ParseRunReport(res.out);
      CHECK(report.already_applied);
      CHECK(report.version == db.version());
      CHECK(report.pages == db.cluster().Dump().num_pages);
    }
    db.ExpectUnchanged();
    for (int i = 0; i < 3; ++i) REQUIRE(db.cluster().Committed(i).version == db.version());
  }
  RunAll(db, db.NextRound());  // nothing is left over to confuse the next round
}

TEST_CASE("writers given the same calls in consecutive rounds apply them each time", "[fault]") {
  FaultDb db(3, 19, 60000);
  // Rounds of (writer 0, writer 1, writer 2) slices: (A, B, -), (A, C, -), (A, C, D), so
  // that some writers repeat their inputs (an empty slice among them) while others do not.
  // Each round has a session of its own, which tells it from a rerun of the one before.
  int round = 0;
  const Session a = db.gen().Next(), b = db.gen().Next(), c = db.gen().Next(), d = db.gen().Next();
  const std::vector<std::vector<Session>> rounds = {{a, b, {}}, {a, c, {}}, {a, c, d}};
  for (const auto& slices : rounds) {
    FaultDb::Round r;
    r.slices = slices;
    for (int i = 0; i < 3; ++i) {
      r.files.push_back(db.cluster().WriteCallFile(i, slices[i]));
      r.session.insert(r.session.end(), slices[i].begin(), slices[i].end());
    }
    const std::vector<std::string> session = {"--session", "round-" + std::to_string(round++)};
    std::vector<std::unique_ptr<Subprocess>> writers;
    for (int i = 0; i < 3; ++i) writers.push_back(db.Start(i, r, {}, session));
    for (int i = 0; i < 3; ++i) {
      ProcessResult res = ExpectSuccess(*writers[i], i);
      CHECK_FALSE(testutil::ParseRunReport(res.out).already_applied);
    }
    db.ExpectApplied(r);
  }
}

// Writer 2 (no calls, no session) waits in the commit for writer 1's section manifest while
// writer 1 is held before sending it there; writer 0, which has all three, decides, and
// writer 2 takes the decision, installs it and cleans up. Writer 1's copy then arrives and
// makes writer 2's round directory again. In the next round, with no calls again, writer 2
// must still offer stage 0: that directory is writer 1's doing, no sign that writer 2 was
// stopped before its clean-up (with it, writer 2 exited 0 at once and its peers timed out
// in stage 0 waiting for it).
TEST_CASE("a peer's manifest arriving after a writer cleaned up does not end its next round",
          "[fault]") {
  FaultDb db(3, 22, 60000);
  auto round_of = [&](const Session& a, const Session& b) {
    FaultDb::Round r;
    r.slices = {a, b, {}};
    for (int i = 0; i < 3; ++i) r.files.push_back(db.cluster().WriteCallFile(i, r.slices[i]));
    r.session = a;
    r.session.insert(r.session.end(), b.begin(), b.end());
    return r;
  };
  const FaultDb::Round first = round_of(db.gen().Next(), db.gen().Next());
  const std::string release = db.cluster().dir().File("release-writer-1");
  std::vector<std::unique_ptr<Subprocess>> writers;
  writers.push_back(db.Start(0, first));
  writers.push_back(
      db.Start(1, first, {"WEBDB_HOLD_AT=commit send 2", "WEBDB_HOLD_UNTIL=" + release}));
  writers.push_back(db.Start(2, first));
  ExpectSuccess(*writers[0], 0);
  ExpectSuccess(*writers[2], 2);
  REQUIRE_FALSE(writers[1]->Finished());  // held before sending to writer 2
  const RoundManifest decided = db.cluster().Committed(0);
  const std::string stray = db.cluster().GroupDir(2) + "/rounds/" +
                            std::to_string(decided.version) + "-" + decided.token +
                            "/s6/from-1.edits";
  REQUIRE_FALSE(fs::exists(stray));  // writer 2 cleaned up
  testutil::WriteTextFile(release, "");
  ExpectSuccess(*writers[1], 1);
  REQUIRE(fs::exists(stray));  // writer 1's late copy
  db.ExpectApplied(first);
  const FaultDb::Round next = round_of(db.gen().Next(), db.gen().Next());
  writers.clear();
  for (int i = 0; i < 3; ++i) writers.push_back(db.Start(i, next));
  // Writer 2 first: had it ended the round alone, its peers would wait out timeout_ms.
  for (int i : {2, 0, 1}) {
    ProcessResult res = ExpectSuccess(*writers[i], i);
    REQUIRE_FALSE(testutil::ParseRunReport(res.out).already_applied);
  }
  db.ExpectApplied(next);
}

// A writer that fails (here: a bad call file) publishes a failure marker into its peers'
// groups; peers waiting for it stop at once naming it and its reason, not after
// timeout_ms, and publish no markers of their own. A rerun with good calls is not
// stopped by the old markers.
TEST_CASE("peers of a failed writer stop at once, naming it and its reason", "[fault]") {
  FaultDb db(3, 21, 600000);  // a wait that ran out would outlast the test
  const FaultDb::Round r = db.NextRound();
  const std::string round = std::to_string(db.version() + 1);
  const std::string bad = db.cluster().dir().File("bad.jsonl");
  testutil::WriteTextFile(bad, "{\"op\":\"addPage\",\"page\":{\"url\":\"http://a.example/\"}}\n"
                               "{\"op\":\"frob\"}\n");
  auto w0 = db.Start(0, r), w1 = db.Start(1, r);
  // Both peers are in stage 0 (their files reached writer 2's group) before writer 2 runs.
  for (int peer : {0, 1}) {
    AwaitFile(db.cluster().GroupDir(2) + "/rounds/" + round + "/s0/from-" + std::to_string(peer) +
              ".edits");
  }
  ProcessResult failed = db.cluster().StartWriter(2, bad)->Wait();
  INFO(failed.Describe());
  REQUIRE(failed.exit_code == 3);
  CHECK_THAT(failed.err, Catch::Contains(bad + ":2:"));
  for (Subprocess* w : {w0.get(), w1.get()}) {
    ProcessResult peer = w->Wait();
    INFO(peer.Describe());
    CHECK(peer.exit_code == 4);
    CHECK_THAT(peer.err, Catch::Contains("round " + round + " stage 0: writer 2 (machine m2) failed: "));
    CHECK_THAT(peer.err, Catch::Contains(bad + ":2:"));
    CHECK_THAT(peer.err, !Catch::Contains("timed out"));
  }
  for (int i = 0; i < 3; ++i) {
    CAPTURE(i);
    const std::string markers = db.cluster().GroupDir(i) + "/rounds/" + round + "/failed";
    CHECK(fs::exists(markers + "/from-2") == (i != 2));
    CHECK_FALSE(fs::exists(markers + "/from-0"));  // peers stopped by a marker stay quiet
    CHECK_FALSE(fs::exists(markers + "/from-1"));
  }
  db.ExpectUnchanged();
  RunAll(db, r);
}

}  // namespace
}  // namespace distwriter
