// The distributed writer under power loss: `create` and rounds of k writers, run as
// threads over one PowerLossEnv holding every machine (test/util/thread_cluster.h), keep
// the durable image at every file sync, directory sync and rename of any writer. A
// power cut there takes down every machine at once; afterwards the db must read at the
// previous or the new version (never back again once new) with the spec's invariants,
// and, after a reboot and the same round run again, every machine must hold byte for
// byte the files of the uninterrupted run.
#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "nutchfs/power_loss_env.h"
#include "test/util/crash_recovery.h"
#include "test/util/session_gen.h"
#include "test/util/thread_cluster.h"

namespace distwriter {
namespace {

using testutil::Session;
using testutil::ThreadCluster;

constexpr int kWriters = 3;

struct Version {
  bool exists = false;
  testutil::DbDump dump;
  std::vector<testutil::FileMap> machines;  // every file below each machine's root
};

Version Capture(nutchfs::Env& env, const ThreadCluster& cluster) {
  auto dump = cluster.Dump(env);
  INFO((dump ? "" : dump.error().ToString()));
  REQUIRE(dump);
  Version v{true, std::move(*dump), {}};
  for (int i = 0; i < cluster.k(); ++i) {
    v.machines.push_back(testutil::FilesBelow(env, ThreadCluster::Root(i)));
  }
  return v;
}

// The files of the db proper: section tables and round manifests (not exchange files,
// locks or inputs).
bool IsDbFile(const std::string& rel) {
  return rel.find("/section/") != std::string::npos || rel.find("/meta/") != std::string::npos;
}

struct Step {
  std::string name;
  Version before, after;
  std::vector<std::string> call_files;  // empty: the step is `create`
};

struct Sweep {
  int points = 0, states = 0, at_new = 0;
  int second_runs = 0;  // states whose first rerun failed and a second one succeeded
  int garbage = 0;      // states after whose rerun files of no use were left
  std::vector<std::string> failures;
  // States with machines at different versions (a cut inside the commit), and those of
  // them that did not recover: today's commit cannot roll a round forward (issue 10,
  // defect 1); reported, not failed on, until it can.
  int mixed = 0;
  std::vector<std::string> mixed_failures;
};

// Whether the machines' copies of meta/CURRENT name different rounds.
bool MixedVersions(nutchfs::Env& env, int k) {
  std::set<std::string> rounds;
  for (int i = 0; i < k; ++i) {
    auto text = nutchfs::ReadFileToString(env, ThreadCluster::Root(i) + "/webdb/meta/CURRENT");
    rounds.insert(text ? *text : "");
  }
  return rounds.size() > 1;
}

// 0: the previous version, 1: the new one; or why neither.
Result<int> WhichVersion(nutchfs::Env& env, const ThreadCluster& cluster, const Step& step) {
  auto dump = cluster.Dump(env);
  if (!dump) {
    if (dump.error().IsNotFound() && !step.before.exists) return 0;
    return Err(dump.error().WithContext("reading the db"));
  }
  std::string broken = testutil::CheckInvariants(*dump);
  if (!broken.empty()) return Err(Status::Corruption("an invariant breaks: " + broken));
  if (step.before.exists && testutil::CompareDumps(step.before.dump, *dump).empty()) return 0;
  const std::string diff = testutil::CompareDumps(step.after.dump, *dump);
  if (diff.empty()) return 1;
  return Err(Status::Corruption("neither the previous nor the new version: " + diff));
}

// Runs the step: `create`, or the round. A rerun of `create` may find the db complete.
Status Run(nutchfs::Env& env, const ThreadCluster& cluster, const Step& step, bool rerun) {
  if (step.call_files.empty()) {
    Status s = cluster.Create(env);
    return rerun && s.IsInvalidArgument() ? Status::OK() : s;
  }
  auto results = cluster.Run(env, step.call_files);
  for (int i = 0; i < cluster.k(); ++i) {
    if (!results[i]) return results[i].error().WithContext("writer " + std::to_string(i));
  }
  return Status::OK();
}

// Compares the machines with the uninterrupted run: every db file byte for byte; any
// other file left over (but lease records) is counted as garbage.
std::string CompareMachines(nutchfs::Env& env, const Step& step, Sweep* sweep) {
  bool garbage = false;
  for (size_t i = 0; i < step.after.machines.size(); ++i) {
    const testutil::FileMap& expected = step.after.machines[i];
    testutil::FileMap actual = testutil::FilesBelow(env, ThreadCluster::Root(static_cast<int>(i)));
    testutil::FileMap expected_db, actual_db;
    for (const auto& [rel, data] : expected) {
      if (IsDbFile(rel)) expected_db[rel] = data;
    }
    for (const auto& [rel, data] : actual) {
      if (IsDbFile(rel) && expected.count(rel) != 0) actual_db[rel] = data;
      // A lease record's epoch counts the runs: a rerun leaves another one, of use.
      const bool lease = rel.find("/.locks/") != std::string::npos;
      garbage = garbage || (expected.count(rel) == 0 && !lease);
    }
    std::string diff = testutil::DiffFiles(expected_db, actual_db);
    if (!diff.empty()) return "machine " + std::to_string(i) + ": " + diff;
  }
  sweep->garbage += garbage;
  return "";
}

std::string Recover(const nutchfs::DurableImage& image, const ThreadCluster& cluster,
                    const Step& step, bool seen_new, int* version, Sweep* sweep) {
  auto env = nutchfs::NewPowerLossEnv(image);
  auto which = WhichVersion(*env, cluster, step);
  if (!which) return which.error().ToString();
  *version = *which;
  if (seen_new && *which == 0) return "back at the previous version after the new one";
  testutil::Reboot(*env, "/");
  Status rerun = Run(*env, cluster, step, true);
  if (!rerun.ok()) {
    // As an operator would: once more, after a failure that may be the cut's.
    Status again = Run(*env, cluster, step, true);
    if (!again.ok()) return "rerun: " + rerun.ToString() + "; again: " + again.ToString();
    ++sweep->second_runs;
  }
  auto dump = cluster.Dump(*env);
  if (!dump) return "after the rerun: " + dump.error().ToString();
  std::string diff = testutil::CompareDumps(step.after.dump, *dump);
  if (!diff.empty()) return "after the rerun: " + diff;
  diff = CompareMachines(*env, step, sweep);
  if (!diff.empty()) return "after the rerun, " + diff;
  return "";
}

void CheckPoints(const std::vector<nutchfs::CrashPoint>& points, const ThreadCluster& cluster,
                 const Step& step, Sweep* sweep) {
  const nutchfs::DurableImage* last = nullptr;
  bool seen_new = false;
  for (const nutchfs::CrashPoint& p : points) {
    ++sweep->points;
    if (p.image.get() == last) continue;
    last = p.image.get();
    ++sweep->states;
    int version = 0;
    const bool mixed = MixedVersions(*nutchfs::NewPowerLossEnv(*p.image), cluster.k());
    sweep->mixed += mixed;
    std::string failure = Recover(*p.image, cluster, step, seen_new, &version, sweep);
    if (!failure.empty()) {
      (mixed ? sweep->mixed_failures : sweep->failures)
          .push_back(step.name + ", cut at " + p.event + ": " + failure);
    }
    seen_new = seen_new || version == 1;
    sweep->at_new += version;
  }
}

// Runs the step's uninterrupted run on env, recording, then checks every point.
void RunStep(nutchfs::PowerLossEnv& env, const ThreadCluster& cluster,
             const ThreadCluster& recovery, Step step, Sweep* sweep) {
  env.RecordCrashPoints(true);
  Status s = Run(env, cluster, step, false);
  env.RecordCrashPoints(false);
  INFO(step.name << ": " << s.ToString());
  REQUIRE(s.ok());
  step.after = Capture(env, cluster);
  CheckPoints(env.TakeCrashPoints(), recovery, step, sweep);
}

TEST_CASE("distributed create and rounds survive a power cut at every sync and rename",
          "[fault]") {
  const ThreadCluster cluster(kWriters, 60000);
  // A rerun that cannot finish waits this long for its peers before it fails.
  const ThreadCluster recovery = cluster.WithTimeout(20000);
  auto env = nutchfs::NewPowerLossEnv();
  ThreadCluster::Prepare(*env);
  Sweep sweep;
  RunStep(*env, cluster, recovery, {"create", {}, {}, {}}, &sweep);
  testutil::GenOptions gen_options;
  gen_options.hostile_bytes = false;  // call files carry valid UTF-8 only
  gen_options.universe_urls = 60;
  gen_options.min_calls = 30;
  gen_options.max_calls = 200;
  testutil::SessionGenerator gen(71, gen_options);
  std::mt19937_64 cuts(71);
  for (int n = 1; n <= 3; ++n) {
    const Session s = gen.Next();
    const std::string name = "round " + std::to_string(n);
    auto files = ThreadCluster::WriteCalls(*env, "r" + std::to_string(n),
                                           testutil::SplitSession(s, kWriters, cuts));
    RunStep(*env, cluster, recovery, {name, Capture(*env, cluster), {}, files}, &sweep);
  }
  WARN("distributed, k = " << kWriters << ": " << sweep.points << " crash points, "
                           << sweep.states << " distinct durable states checked ("
                           << sweep.at_new << " at the new version), " << sweep.failures.size()
                           << " failures; " << sweep.second_runs
                           << " needed a second rerun, " << sweep.garbage
                           << " left files of no use after the rerun");
  WARN(sweep.mixed << " states with machines at different versions (a cut inside the "
                    "commit), " << sweep.mixed_failures.size() << " of them not recovered");
  for (size_t i = 0; i < sweep.mixed_failures.size() && i < 5; ++i) WARN(sweep.mixed_failures[i]);
  for (size_t i = 0; i < sweep.failures.size() && i < 20; ++i) UNSCOPED_INFO(sweep.failures[i]);
  CHECK(sweep.failures.empty());
  CHECK(sweep.points >= 300);
}

TEST_CASE("distwriter create cut short is done again, a created db is refused", "[fault]") {
  const ThreadCluster cluster(kWriters, 60000);
  auto env = nutchfs::NewPowerLossEnv();
  ThreadCluster::Prepare(*env);
  REQUIRE(cluster.Create(*env).ok());
  const std::string current1 = ThreadCluster::Root(1) + "/webdb/meta/CURRENT";
  CHECK(cluster.Create(*env).IsInvalidArgument());  // complete: refused
  REQUIRE(env->RemoveFile(current1).ok());          // as if cut before its put
  REQUIRE(cluster.Create(*env).ok());
  CHECK(env->FileExists(current1));
  auto files = ThreadCluster::WriteCalls(*env, "r1", {{}, {}, {}});
  for (const auto& r : cluster.Run(*env, files)) REQUIRE(r);
  REQUIRE(env->RemoveFile(current1).ok());  // a db with a round: never created again
  Status again = cluster.Create(*env);
  CHECK(again.IsInvalidArgument());
  CHECK_THAT(again.message(), Catch::Contains("already exists"));
}

}  // namespace
}  // namespace distwriter
