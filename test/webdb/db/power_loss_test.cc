// The single-machine writer under power loss (nutchfs/power_loss_env.h): `create` and
// sessions run once on a PowerLossEnv that keeps the durable image at every file sync,
// directory sync and rename; for each image, what a power cut there leaves must open at
// the previous or the new version (never back again once new), verify clean, and,
// after a reboot and a rerun of the step (when still at the previous version) or the
// next session (an empty one), hold byte for byte the files of the uninterrupted run.
#include <catch2/catch.hpp>

#include "nutchfs/power_loss_env.h"
#include "test/util/crash_recovery.h"
#include "test/util/db_dump.h"
#include "test/util/session_gen.h"
#include "webdb/db/reader.h"
#include "webdb/db/writer.h"

namespace webdb {
namespace {

using testutil::Session;

constexpr char kDb[] = "/db";
constexpr char kScratch[] = "/verify-scratch";

// A version of the db as the uninterrupted run left it (exists: false before create).
struct Version {
  bool exists = false;
  testutil::DbDump dump;
  testutil::FileMap files;
};

Version Capture(nutchfs::Env& env) {
  auto reader = Reader::Open(env, kDb);
  REQUIRE(reader);
  auto dump = testutil::DumpDb(**reader);
  REQUIRE(dump);
  return {true, std::move(*dump), testutil::FilesBelow(env, kDb)};
}

WriterOptions SmallBudget() {
  WriterOptions o;
  o.memory_budget = 64 << 10;  // the sorts spill runs: more files, more syncs
  return o;
}

// One step of the uninterrupted run and what to do again after a cut during it.
struct Step {
  std::string name;
  Version before, after;
  std::function<Status(nutchfs::Env&)> redo;
};

// Tallies of a sweep.
struct Sweep {
  int points = 0;  // crash points (syncs, directory syncs, renames with both outcomes)
  int states = 0;  // distinct durable states among them, each checked
  int at_new = 0;  // states already at the new version
  std::vector<std::string> failures;
};

// Which version the db at env is: 0 the previous, 1 the new; or why neither.
Result<int> WhichVersion(nutchfs::Env& env, const Step& step) {
  auto reader = Reader::Open(env, kDb);
  if (!reader) {
    if (reader.error().IsNotFound() && !step.before.exists) return 0;
    return Err(reader.error().WithContext("opening the db"));
  }
  NUTCHFS_ASSIGN_OR_RETURN(testutil::DbDump dump, testutil::DumpDb(**reader));
  // A session may leave the records as they were: then CURRENT tells the versions apart.
  auto current = nutchfs::ReadFileToString(env, std::string(kDb) + "/CURRENT");
  if (current && *current == step.after.files.at("CURRENT") &&
      testutil::CompareDumps(step.after.dump, dump).empty()) {
    return 1;
  }
  if (step.before.exists && testutil::CompareDumps(step.before.dump, dump).empty()) return 0;
  const std::string diff = testutil::CompareDumps(step.after.dump, dump);
  if (diff.empty()) return 1;
  return Err(Status::Corruption("neither the previous nor the new version: " + diff));
}

// What a power cut that left `image` during `step` leads to; empty when all is well.
std::string Recover(const nutchfs::DurableImage& image, const Step& step, bool seen_new,
                    int* version) {
  auto env = nutchfs::NewPowerLossEnv(image);
  auto which = WhichVersion(*env, step);
  if (!which) return which.error().ToString();
  *version = *which;
  if (seen_new && *which == 0) return "back at the previous version after the new one";
  if (*which == 1 || step.before.exists) {
    std::string findings = testutil::VerifyFindings(*env, kDb, kScratch);
    if (!findings.empty()) return "after the cut: " + findings;
  }
  testutil::Reboot(*env, "/");
  Status rerun = *which == 0 ? step.redo(*env) : testutil::RunSession(*env, kDb, {}, SmallBudget());
  if (!rerun.ok()) return "rerun: " + rerun.ToString();
  std::string diff = testutil::DiffFiles(step.after.files, testutil::FilesBelow(*env, kDb));
  if (!diff.empty()) return "after the rerun: " + diff;
  std::string findings = testutil::VerifyFindings(*env, kDb, kScratch);
  if (!findings.empty()) return "after the rerun: " + findings;
  return "";
}

// Checks every distinct durable state of the points taken during step.
void CheckPoints(const std::vector<nutchfs::CrashPoint>& points, const Step& step, Sweep* sweep) {
  const nutchfs::DurableImage* last = nullptr;
  bool seen_new = false;
  for (const nutchfs::CrashPoint& p : points) {
    ++sweep->points;
    if (p.image.get() == last) continue;
    last = p.image.get();
    ++sweep->states;
    int version = 0;
    std::string failure = Recover(*p.image, step, seen_new, &version);
    if (!failure.empty()) sweep->failures.push_back(step.name + ", cut at " + p.event + ": " + failure);
    seen_new = seen_new || version == 1;
    sweep->at_new += version;
  }
}

// Runs fn on env while recording crash points, then checks them as a cut during step.
void RunStep(nutchfs::PowerLossEnv& env, Step step, const std::function<Status()>& fn,
             Sweep* sweep) {
  env.RecordCrashPoints(true);
  Status s = fn();
  env.RecordCrashPoints(false);
  INFO(step.name << ": " << s.ToString());
  REQUIRE(s.ok());
  step.after = Capture(env);
  CheckPoints(env.TakeCrashPoints(), step, sweep);
}

void Report(const std::string& what, const Sweep& sweep) {
  WARN(what << ": " << sweep.points << " crash points, " << sweep.states
            << " distinct durable states checked (" << sweep.at_new << " at the new version), "
            << sweep.failures.size() << " failures");
  for (size_t i = 0; i < sweep.failures.size() && i < 20; ++i) UNSCOPED_INFO(sweep.failures[i]);
  CHECK(sweep.failures.empty());
}

TEST_CASE("webdb create and sessions survive a power cut at every sync and rename", "[fault]") {
  Sweep sweep;
  for (uint64_t seed : {61, 62, 63, 64}) {
    auto env = nutchfs::NewPowerLossEnv();
    Version none;
    RunStep(*env, {"create", none, {}, [](nutchfs::Env& e) { return Writer::Create(e, kDb); }},
            [&] { return Writer::Create(*env, kDb); }, &sweep);
    testutil::GenOptions gen_options;
    gen_options.min_calls = 40;
    gen_options.max_calls = 400;
    testutil::SessionGenerator gen(seed, gen_options);
    for (int n = 1; n <= 5; ++n) {
      const Session s = gen.Next();
      const std::string name = "seed " + std::to_string(seed) + " session " + std::to_string(n);
      auto redo = [s](nutchfs::Env& e) { return testutil::RunSession(e, kDb, s, SmallBudget()); };
      RunStep(*env, {name, Capture(*env), {}, redo},
              [&] { return testutil::RunSession(*env, kDb, s, SmallBudget()); }, &sweep);
    }
  }
  Report("single machine", sweep);
  CHECK(sweep.points >= 300);
}

TEST_CASE("a writer's Open removes temporary files an interrupted write left", "[fault]") {
  auto env = nutchfs::NewPowerLossEnv();
  REQUIRE(Writer::Create(*env, kDb).ok());
  const testutil::FileMap clean = testutil::FilesBelow(*env, kDb);
  // Among them a table builder's side file of index entries (a table of over ~10k blocks).
  for (const char* name : {"/CURRENT.tmp.12.3", "/MANIFEST-000002.tmp.12.4", "/.tmp.LOCK.h.12.ab",
                           "/linksByURL-000002.tbl.tmp.index"}) {
    REQUIRE(nutchfs::WriteFileAtomically(*env, kDb + std::string(name), "partial").ok());
  }
  CHECK_FALSE(testutil::VerifyFindings(*env, kDb, kScratch).empty());
  REQUIRE(testutil::RunSession(*env, kDb, {}).ok());
  CHECK(testutil::DiffFiles(clean, testutil::FilesBelow(*env, kDb)) == "");
  CHECK(testutil::VerifyFindings(*env, kDb, kScratch) == "");
}

}  // namespace
}  // namespace webdb
