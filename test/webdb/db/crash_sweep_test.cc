// Crash sweep at scale (tag [sweep]: not run by ctest; scripts/crash-sweep.sh runs it,
// docs/RELIABILITY.md "Crash sweeps"): `webdb apply` of the bench workload's load
// session (SWEEP_PAGES pages) into an empty db, killed with SIGKILL at SWEEP_KILLS random
// moments between its start and a tenth past its uninterrupted duration. After each kill
// the db is restarted as an operator would — the same apply again if it is still empty,
// an empty session otherwise (which clears what the killed one left) — and must then
// hold, byte for byte, the files of the uninterrupted apply.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "nutchfs/env.h"
#include "test/util/subprocess.h"
#include "test/util/sweep.h"
#include "test/util/temp_dir.h"
#include "webdb/db/manifest.h"

namespace webdb {
namespace {

using std::chrono::milliseconds;
using testutil::ProcessResult;
using testutil::Subprocess;

// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kWebdb = PROJECT_BINARY_DIR "/test/killable/webdb";

class Sweep {
 public:
  Sweep() : env_(nutchfs::NewLocalEnv()) {}

  const testutil::TempDir& tmp() const { return tmp_; }
  std::unique_ptr<Subprocess> Start(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kWebdb};
    argv.insert(argv.end(), args.begin(), args.end());
    return Subprocess::Start(argv, {}, tmp_.File("webdb-" + std::to_string(n_++)));
  }
  void Run(const std::vector<std::string>& args) {
    ProcessResult r = Start(args)->Wait(std::chrono::hours(6));
    INFO("webdb " << args.front() << ": " << r.Describe());
    REQUIRE(r.exit_code == 0);
  }
  uint64_t Version(const std::string& db) {
    auto m = ReadCurrentManifest(*env_, db);
    INFO(db << ": " << (m ? "" : m.error().ToString()));
    REQUIRE(m);
    return m->version;
  }

 private:
  testutil::TempDir tmp_;
  std::unique_ptr<nutchfs::Env> env_;
  int n_ = 0;
};

TEST_CASE("webdb apply of a large session killed at random moments recovers", "[sweep][crash]") {
  const testutil::SweepParams params =
      testutil::ReadSweepParams(PROJECT_BINARY_DIR "/bench/webdb_bench");
  Sweep sweep;
  const std::string load = sweep.tmp().File("load.jsonl");
  const std::string empty = sweep.tmp().File("empty.jsonl");
  testutil::GenerateLoad(params, load);
  std::ofstream(empty).close();
  const std::vector<std::string> flags = {"--quiet", "--memory", "256M"};
  auto apply = [&](const std::string& db, const std::string& calls) {
    std::vector<std::string> args = {"apply", db, calls};
    args.insert(args.end(), flags.begin(), flags.end());
    return args;
  };

  const std::string reference = sweep.tmp().File("reference");
  sweep.Run({"create", reference});
  const auto start = std::chrono::steady_clock::now();
  sweep.Run(apply(reference, load));
  const auto full_ms = std::chrono::duration_cast<milliseconds>(
                           std::chrono::steady_clock::now() - start).count();

  std::mt19937_64 rng(params.seed);
  int recovered = 0, killed_before = 0, killed_after = 0, finished = 0;
  std::vector<std::string> failures;
  const std::string db = sweep.tmp().File("db");
  for (int n = 0; n < params.kills; ++n) {
    std::filesystem::remove_all(db);
    sweep.Run({"create", db});
    const milliseconds delay(std::uniform_int_distribution<int64_t>(0, full_ms * 11 / 10)(rng));
    auto p = sweep.Start(apply(db, load));
    std::this_thread::sleep_for(delay);
    if (!p->Finished()) p->Kill(SIGKILL);
    ProcessResult r = p->Wait(std::chrono::hours(6));
    const bool was_killed = r.KilledBy(SIGKILL);
    const std::string what = "apply at " + std::to_string(delay.count()) + " ms";
    if (!was_killed && r.exit_code != 0) {
      failures.push_back("kill " + std::to_string(n) + ": " + r.Describe());
      testutil::ReportKill(n, what, r.Describe());
      continue;
    }
    const uint64_t version = sweep.Version(db);
    finished += !was_killed;
    killed_before += was_killed && version == 1;
    killed_after += was_killed && version == 2;
    sweep.Run(apply(db, version == 1 ? load : empty));
    int extra = 0;
    std::string diff = testutil::CompareTrees(reference, db, [](const std::string&) { return true; },
                                              &extra);
    if (diff.empty() && extra != 0) diff = std::to_string(extra) + " extra files";
    testutil::ReportKill(n, what, diff.empty() ? "recovered" : diff);
    if (diff.empty()) {
      ++recovered;
    } else {
      failures.push_back("kill " + std::to_string(n) + " after " + std::to_string(delay.count()) +
                         " ms: " + diff);
    }
  }
  WARN("webdb apply of " << params.pages << " pages (" << full_ms << " ms uninterrupted), seed "
                         << params.seed << ": " << recovered << "/" << params.kills
                         << " recovered; killed before publishing " << killed_before
                         << ", after " << killed_after << ", finished first " << finished);
  for (const std::string& f : failures) UNSCOPED_INFO(f);
  CHECK(recovered == params.kills);
}

}  // namespace
}  // namespace webdb
