// The single-machine `webdb apply` under SIGKILL: killed as each step begins
// (WEBDB_KILL_AT) and after a sweep of delays, the db must still open with its previous
// content, and running the same apply again must give the model's result. A second apply
// while one runs is refused (docs in webdb/db/writer.h: the db's writer lock).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "test/util/call_writer.h"
#include "test/util/model.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "webdb/db/manifest.h"
#include "webdb/db/reader.h"

namespace webdb {
namespace {

using std::chrono::milliseconds;
using testutil::ProcessResult;
using testutil::Session;
using testutil::Subprocess;

// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kWebdb = PROJECT_BINARY_DIR "/test/killable/webdb";

// A db made by `webdb create`, and the model of what it should hold.
class CrashDb {
 public:
  CrashDb() : env_(nutchfs::NewLocalEnv()), db_(tmp_.File("db")) {
    ProcessResult r = testutil::RunProcess({kWebdb, "create", db_}, {}, Prefix("create"));
    INFO(r.Describe());
    REQUIRE(r.exit_code == 0);
  }

  const std::string& db() const { return db_; }
  std::string Prefix(const std::string& what) { return tmp_.File(std::to_string(n_++) + what); }
  std::string WriteCalls(const Session& s) {
    const std::string path = Prefix("calls.jsonl");
    testutil::WriteCallFile(path, s);
    return path;
  }
  std::unique_ptr<Subprocess> StartApply(const std::string& calls,
                                         const std::vector<std::string>& env = {}) {
    return Subprocess::Start({kWebdb, "apply", db_, calls, "--quiet", "--memory", "1M"}, env,
                             Prefix("apply"));
  }

  testutil::DbDump Dump() {
    auto reader = Reader::Open(*env_, db_);
    INFO("opening " << db_ << ": " << (reader ? "" : reader.error().ToString()));
    REQUIRE(reader.has_value());
    auto dump = testutil::DumpDb(**reader);
    INFO("dumping " << db_ << ": " << (dump ? "" : dump.error().ToString()));
    REQUIRE(dump.has_value());
    return *dump;
  }
  // The db holds exactly the model's content.
  void ExpectModel() { REQUIRE(testutil::CompareDumps(model_.ToDump(), Dump()) == ""); }
  // Runs the apply to success and moves the model on.
  void Apply(const Session& s, const std::string& calls) {
    ProcessResult r = StartApply(calls)->Wait();
    INFO(r.Describe());
    REQUIRE(r.exit_code == 0);
    model_.Apply(s);
    ExpectModel();
  }
  testutil::Model& model() { return model_; }

 private:
  testutil::TempDir tmp_;
  std::unique_ptr<nutchfs::Env> env_;
  std::string db_;
  testutil::Model model_;
  int n_ = 0;
};

testutil::GenOptions Utf8Sessions(size_t min_calls, size_t max_calls) {
  testutil::GenOptions o;
  o.hostile_bytes = false;  // call files carry valid UTF-8 only
  o.min_calls = min_calls;
  o.max_calls = max_calls;
  return o;
}

// The next session that has calls (an empty one runs no stage, so no hook fires).
Session NonEmpty(testutil::SessionGenerator& gen) {
  Session s = gen.Next();
  while (s.empty()) s = gen.Next();
  return s;
}

TEST_CASE("webdb apply killed as each step begins leaves the db as it was", "[fault]") {
  CrashDb db;
  testutil::SessionGenerator gen(31, Utf8Sessions(20, 200));
  const Session first = NonEmpty(gen);
  db.Apply(first, db.WriteCalls(first));
  for (const char* step : {"stage 1", "stage 2", "stage 3", "stage 4", "stage 5", "publish"}) {
    CAPTURE(step);
    const Session s = NonEmpty(gen);
    const std::string calls = db.WriteCalls(s);
    ProcessResult killed = db.StartApply(calls, {std::string("WEBDB_KILL_AT=") + step})->Wait();
    INFO(killed.Describe());
    REQUIRE(killed.KilledBy(SIGKILL));
    db.ExpectModel();  // the previous version, whole
    db.Apply(s, calls);
  }
}

// Small sessions on a larger db write runs (docs/DESIGN.md, "Writing a round"): killed as
// each step begins, before or after a stage wrote its run, the db is its previous version.
TEST_CASE("webdb apply writing runs killed as each step begins leaves the db as it was",
          "[fault][layered]") {
  CrashDb db;
  testutil::SessionGenerator gen(37, Utf8Sessions(1500, 2000));
  const Session first = NonEmpty(gen);
  db.Apply(first, db.WriteCalls(first));
  auto env = nutchfs::NewLocalEnv();
  size_t runs = 0;
  for (const char* step : {"stage 1", "stage 2", "stage 3", "stage 4", "stage 5", "publish"}) {
    CAPTURE(step);
    Session s = NonEmpty(gen);
    s.resize(std::min<size_t>(s.size(), 8));
    const std::string calls = db.WriteCalls(s);
    ProcessResult killed = db.StartApply(calls, {std::string("WEBDB_KILL_AT=") + step})->Wait();
    INFO(killed.Describe());
    REQUIRE(killed.KilledBy(SIGKILL));
    db.ExpectModel();
    db.Apply(s, calls);
    auto m = ReadCurrentManifest(*env, db.db());
    REQUIRE(m.has_value());
    for (const TableRuns& r : m->runs) runs += r.size();
  }
  CHECK(runs > 0);  // the rounds did write runs
}

enum class Outcome { kKilledBeforePublish, kKilledAfterPublish, kFinished };

// Starts an apply of s, kills it after delay, checks the db and finishes the session:
// a db still at its previous version gets the same apply again.
Outcome ApplyKilledAfter(CrashDb& db, const Session& s, milliseconds delay) {
  const std::string calls = db.WriteCalls(s);
  auto p = db.StartApply(calls);
  std::this_thread::sleep_for(delay);
  p->Kill(SIGKILL);
  ProcessResult r = p->Wait();
  INFO(r.Describe());
  REQUIRE((r.KilledBy(SIGKILL) || r.exit_code == 0));
  if (testutil::CompareDumps(db.model().ToDump(), db.Dump()).empty()) {
    db.Apply(s, calls);  // the previous version, whole: the rerun applies the session
    return r.KilledBy(SIGKILL) ? Outcome::kKilledBeforePublish : Outcome::kFinished;
  }
  db.model().Apply(s);  // killed after publishing (or not killed): the new version
  db.ExpectModel();
  return r.KilledBy(SIGKILL) ? Outcome::kKilledAfterPublish : Outcome::kFinished;
}

// Kills at delays spread over an undisturbed apply's time. How many land before publish
// depends on the machine's speed at that moment, so the sweep does not count on it: it
// goes on, with delays shrinking whenever one came too late, until kWanted kills have
// landed inside the stages (a slow machine only makes that easier).
TEST_CASE("webdb apply killed after a sweep of delays recovers on rerun", "[fault]") {
  CrashDb db;
  testutil::GenOptions big = Utf8Sessions(14000, 16000);
  big.universe_urls = 2000;
  big.long_anchor_chance = 0.002;
  testutil::SessionGenerator gen(32, big);
  const Session first = NonEmpty(gen);
  const auto start = std::chrono::steady_clock::now();
  db.Apply(first, db.WriteCalls(first));
  milliseconds span =
      std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
  constexpr int kWanted = 4, kMaxKills = 40;
  std::map<Outcome, int> outcomes;
  for (int n = 0; n < kMaxKills && outcomes[Outcome::kKilledBeforePublish] < kWanted; ++n) {
    // Delays walk from at once to a quarter past the span, then round again.
    const milliseconds delay(span.count() * 5 * (n % 8) / 28);
    CAPTURE(n, delay.count(), span.count());
    const Outcome o = ApplyKilledAfter(db, NonEmpty(gen), delay);
    ++outcomes[o];
    if (o != Outcome::kKilledBeforePublish && delay > milliseconds(0)) span = delay * 3 / 4;
  }
  WARN("kills before publishing: " << outcomes[Outcome::kKilledBeforePublish] << ", after: "
                                   << outcomes[Outcome::kKilledAfterPublish]
                                   << ", finished first: " << outcomes[Outcome::kFinished]);
  CHECK(outcomes[Outcome::kKilledBeforePublish] >= kWanted);  // the sweep did hit the stages
}

// Waits until path exists; fails the test after 30 s.
void AwaitFile(const std::string& path) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!std::filesystem::exists(path)) {
    INFO("waiting for " << path);
    REQUIRE(std::chrono::steady_clock::now() < end);
    std::this_thread::sleep_for(milliseconds(2));
  }
}

TEST_CASE("a second webdb apply while one runs is refused", "[fault]") {
  CrashDb db;
  testutil::SessionGenerator gen(33, Utf8Sessions(20, 200));
  const Session s = NonEmpty(gen);
  // The first apply reads its calls from a FIFO, so it holds the db until we write them.
  const std::string fifo = db.Prefix("calls.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto first = db.StartApply(fifo);
  AwaitFile(db.db() + "/LOCK");
  ProcessResult second = db.StartApply(db.WriteCalls(NonEmpty(gen)))->Wait();
  INFO(second.Describe());
  CHECK(second.exit_code == 4);
  CHECK_THAT(second.err, Catch::Contains(db.db() + "/LOCK"));
  CHECK_THAT(second.err, Catch::Contains("held by live"));
  REQUIRE_FALSE(first->Finished());
  const std::string text = testutil::CallFileText(s);
  const int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
  ProcessResult r = first->Wait();
  INFO(r.Describe());
  REQUIRE(r.exit_code == 0);
  db.model().Apply(s);
  db.ExpectModel();
}

}  // namespace
}  // namespace webdb
