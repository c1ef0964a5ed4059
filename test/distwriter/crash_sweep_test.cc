// Crash sweeps at scale of the distributed writer (tag [sweep]: not run by ctest;
// scripts/crash-sweep.sh runs them, docs/RELIABILITY.md "Crash sweeps"). A k = 4 round
// of the bench workload's load session (SWEEP_PAGES pages, cut into four slices) is
// interrupted at random moments between its start and a tenth past its uninterrupted
// duration: SIGKILL to one random writer, restarted at once with the same command while
// its peers wait; to two writers at once, both restarted; or to `distwriter launch`,
// run again once the writers it left behind have exited. Each time every writer must
// end with exit 0 and every machine must hold, byte for byte, the section and round
// manifest files of the uninterrupted round (files of no use left besides are counted):
// with SWEEP_REPLICAS = 2, every replica's copy as well.
#include <dirent.h>
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "test/util/dist_cluster.h"
#include "test/util/sweep.h"

namespace distwriter {
namespace {

using std::chrono::milliseconds;
using testutil::DistCluster;
using testutil::ProcessResult;
using testutil::Subprocess;

// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kDistwriter = PROJECT_BINARY_DIR "/test/killable/distwriter";
constexpr int kWriters = 4;
constexpr auto kDeadline = std::chrono::hours(6);

bool IsDbFile(const std::string& rel) {
  return rel.find("/section/") != std::string::npos || rel.find("/meta/") != std::string::npos;
}

// Whether a process whose command line mentions `needle` runs (the writers a killed
// launcher left behind name its config).
bool ProcessMentioning(const std::string& needle) {
  DIR* proc = ::opendir("/proc");
  REQUIRE(proc != nullptr);
  bool found = false;
  while (struct dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    found = found || cmdline.find(needle) != std::string::npos;
  }
  ::closedir(proc);
  return found;
}

struct Tally {
  int total = 0, recovered = 0, extra_files = 0;
  std::vector<std::string> failures;
};

// A fresh cluster with `replicas` copies of each section and the db created.
std::unique_ptr<DistCluster> NewCluster(int timeout_ms, int replicas) {
  auto c = std::make_unique<DistCluster>(kDistwriter, kWriters, timeout_ms);
  c->SetGlobal("replicas", std::to_string(replicas));
  c->Create();
  return c;
}

// Counts the outcome of a kill: `failed` (what went wrong on the restart), else the
// comparison of every machine of `trial` with `reference`; reports it at once.
void Record(const DistCluster& reference, const DistCluster& trial, const std::string& what,
            const std::string& failed, Tally* t) {
  const int n = t->total++;
  std::string outcome = failed;
  int extra = 0;
  for (int i = 0; i < kWriters && outcome.empty(); ++i) {
    const std::string m = "/m" + std::to_string(i);
    std::string diff = testutil::CompareTrees(reference.dir().path() + m, trial.dir().path() + m,
                                              IsDbFile, &extra);
    if (!diff.empty()) outcome = "machine " + std::to_string(i) + ": " + diff;
  }
  testutil::ReportKill(n, what, outcome.empty() ? "recovered" : outcome);
  if (!outcome.empty()) {
    t->failures.push_back(what + ": " + outcome);
    return;
  }
  t->extra_files += extra;
  ++t->recovered;
}

// Runs every writer on its slice, kills `victims` after delay, restarts them, waits.
std::string KillWriters(DistCluster& c, const std::vector<std::string>& slices,
                        const std::vector<int>& victims, milliseconds delay) {
  std::vector<std::unique_ptr<Subprocess>> w;
  for (int i = 0; i < kWriters; ++i) w.push_back(c.StartWriter(i, slices[i]));
  std::this_thread::sleep_for(delay);
  for (int v : victims) {
    if (!w[v]->Finished()) w[v]->Kill(SIGKILL);
  }
  std::vector<ProcessResult> ended(kWriters);
  for (int v : victims) {
    ended[v] = w[v]->Wait(kDeadline);
    // Restarted when killed; one that finished first is done.
    if (ended[v].KilledBy(SIGKILL)) w[v] = c.StartWriter(v, slices[v]);
  }
  for (int i = 0; i < kWriters; ++i) {
    if (!ended[i].KilledBy(SIGKILL) && ended[i].exit_code == 0) continue;
    ProcessResult r = w[i]->Wait(kDeadline);
    if (r.exit_code != 0) return "writer " + std::to_string(i) + ": " + r.Describe();
  }
  return "";
}

TEST_CASE("a k = 4 round with writers or the launcher killed at random moments recovers",
          "[sweep][crash]") {
  const testutil::SweepParams params =
      testutil::ReadSweepParams(PROJECT_BINARY_DIR "/bench/webdb_bench");
  testutil::TempDir work;
  const std::string load = work.File("load.jsonl");
  testutil::GenerateLoad(params, load);
  const auto slices = testutil::SplitCallFile(load, kWriters, work.File("slice"));

  // The uninterrupted rounds, by `run` and by `launch`; their durations set the timeout.
  auto reference = NewCluster(3600 * 1000, params.replicas);
  auto start = std::chrono::steady_clock::now();
  REQUIRE(KillWriters(*reference, slices, {}, milliseconds(0)).empty());
  const int64_t round_ms = std::chrono::duration_cast<milliseconds>(
                               std::chrono::steady_clock::now() - start).count();
  auto launched = NewCluster(3600 * 1000, params.replicas);
  // One session for every launch, so that each killed launch's rerun makes the reference's
  // round, token included.
  const std::vector<std::string> launch = {kDistwriter, "launch", "--config", launched->config(),
                                           "--session", "sweep", "--quiet", load};
  start = std::chrono::steady_clock::now();
  ProcessResult r = testutil::RunProcess(launch, {}, work.File("launch-reference"));
  INFO(r.Describe());
  REQUIRE(r.exit_code == 0);
  const int64_t launch_ms = std::chrono::duration_cast<milliseconds>(
                                std::chrono::steady_clock::now() - start).count();
  const int timeout_ms = static_cast<int>(std::max<int64_t>(60000, 3 * round_ms));

  std::mt19937_64 rng(params.seed);
  auto moment = [&](int64_t ms) {
    return milliseconds(std::uniform_int_distribution<int64_t>(0, ms * 11 / 10)(rng));
  };
  auto writer = [&] { return static_cast<int>(std::uniform_int_distribution<int>(0, kWriters - 1)(rng)); };
  Tally one, two, launcher;
  for (int n = 0; n < params.kills; ++n) {
    auto c = NewCluster(timeout_ms, params.replicas);
    const int victim = writer();
    const milliseconds delay = moment(round_ms);
    const std::string what = "writer " + std::to_string(victim) + " at " + std::to_string(delay.count()) + " ms";
    Record(*reference, *c, what, KillWriters(*c, slices, {victim}, delay), &one);
  }
  for (int n = 0; n < params.pair_kills; ++n) {
    auto c = NewCluster(timeout_ms, params.replicas);
    const int a = writer();
    const int b = (a + 1 + std::uniform_int_distribution<int>(0, kWriters - 2)(rng)) % kWriters;
    const milliseconds delay = moment(round_ms);
    const std::string what = "writers " + std::to_string(a) + " and " + std::to_string(b) + " at " +
                             std::to_string(delay.count()) + " ms";
    Record(*reference, *c, what, KillWriters(*c, slices, {a, b}, delay), &two);
  }
  for (int n = 0; n < params.launch_kills; ++n) {
    auto c = NewCluster(timeout_ms, params.replicas);
    const std::vector<std::string> argv = {kDistwriter, "launch",   "--config", c->config(),
                                           "--session",  "sweep", "--quiet",   load};
    const milliseconds delay = moment(launch_ms);
    const std::string what = "launch at " + std::to_string(delay.count()) + " ms";
    auto p = Subprocess::Start(argv, {}, work.File("launch-" + std::to_string(n)));
    std::this_thread::sleep_for(delay);
    if (!p->Finished()) p->Kill(SIGKILL);
    p->Wait(kDeadline);
    // Its local writers are not stopped with it: wait until they are gone.
    const auto end = std::chrono::steady_clock::now() + kDeadline;
    while (ProcessMentioning(c->config()) && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(milliseconds(50));
    }
    ProcessResult again = testutil::RunProcess(argv, {}, work.File("relaunch-" + std::to_string(n)));
    Record(*launched, *c, what, again.exit_code == 0 ? "" : "launch again: " + again.Describe(),
           &launcher);
  }
  WARN("k = " << kWriters << ", " << params.pages << " pages (round " << round_ms << " ms, launch "
              << launch_ms << " ms), replicas " << params.replicas << ", seed " << params.seed << ": one writer killed "
              << one.recovered << "/" << one.total << " recovered, two writers " << two.recovered
              << "/" << two.total << ", the launcher " << launcher.recovered << "/"
              << launcher.total << "; files of no use left: " << one.extra_files + two.extra_files + launcher.extra_files);
  for (const Tally* t : {&one, &two, &launcher}) {
    for (const std::string& f : t->failures) UNSCOPED_INFO(f);
  }
  CHECK(one.recovered + two.recovered + launcher.recovered ==
        params.kills + params.pair_kills + params.launch_kills);
}

}  // namespace
}  // namespace distwriter
