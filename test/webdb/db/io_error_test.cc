// The single-machine writer on a failing disk (nutchfs/fault_env.h): ENOSPC, EIO and
// EDQUOT at every call index of every write, sync, rename and directory operation of a
// session — the disk staying full (or broken) from that call on. Each time the session
// must fail with an IOError naming the errno, the operation and a file of the db; the
// db must be at its previous version (or the new one, when the failure came after the
// switch), verify clean with no file left over and no temporary file; and once the
// disk is well again, rerunning the session must give the uninterrupted run's files
// byte for byte.
#include <cerrno>
#include <cstring>
#include <catch2/catch.hpp>
#include <map>

#include "nutchfs/fault_env.h"
#include "nutchfs/mem_env.h"
#include "test/util/crash_recovery.h"
#include "test/util/db_dump.h"
#include "test/util/fault_ops.h"
#include "test/util/session_gen.h"
#include "webdb/db/reader.h"

namespace webdb {
namespace {

using nutchfs::FaultOp;
using testutil::Session;

constexpr char kDb[] = "/db";
constexpr char kScratch[] = "/verify-scratch";

using Op = testutil::WriteOp;
constexpr auto& kOps = testutil::kWriteOps;
constexpr int kErrors[] = {ENOSPC, EIO, EDQUOT};

WriterOptions SmallBudget() {
  WriterOptions o;
  o.memory_budget = 16 << 10;  // the sorts spill runs
  return o;
}

// A db made by `create` and a first session, on a FaultEnv over a fresh memory Env.
struct Disk {
  std::unique_ptr<nutchfs::Env> mem = nutchfs::NewMemEnv();
  std::unique_ptr<nutchfs::FaultEnv> env = nutchfs::NewFaultEnv(mem.get());

  explicit Disk(const Session& first) {
    REQUIRE(Writer::Create(*env, kDb).ok());
    REQUIRE(testutil::RunSession(*env, kDb, first, SmallBudget()).ok());
  }
  testutil::DbDump Dump() {
    auto reader = Reader::Open(*env, kDb);
    INFO((reader ? "" : reader.error().ToString()));
    REQUIRE(reader);
    auto dump = testutil::DumpDb(**reader);
    REQUIRE(dump);
    return *dump;
  }
};

struct Expected {
  testutil::DbDump before, after;
  testutil::FileMap before_files, files;  // before and after the session
};

// Whether the message names the failure: the errno's text, the db (or a file in it).
bool NamesFailure(const std::string& message, int error) {
  return message.find(std::strerror(error)) != std::string::npos &&
         message.find(kDb) != std::string::npos;
}

// One session with the disk failing from the nth call of op on; empty when all is well.
std::string FailAt(const Session& first, const Session& second, const Expected& expected,
                   FaultOp op, int nth, int error) {
  Disk disk(first);
  nutchfs::FaultSpec spec{op, nth, nutchfs::FaultKind::kError, -1};
  spec.error = error;
  REQUIRE(disk.env->Inject(spec).ok());
  Status s = testutil::RunSession(*disk.env, kDb, second, SmallBudget());
  const bool fired = disk.env->fired() > 0;
  disk.env->Clear();  // space is back
  if (!fired) return "the fault never fired";
  if (s.ok()) return "the session succeeded";
  if (!s.IsIOError() || !NamesFailure(s.message(), error)) return "message: " + s.ToString();
  testutil::DbDump now = disk.Dump();
  const bool at_new = testutil::CompareDumps(expected.after, now).empty();
  if (!at_new && !testutil::CompareDumps(expected.before, now).empty()) {
    return "neither the previous nor the new version";
  }
  // Releasing the lock renames it: with renames failing, the LOCK stays, and the next
  // writer breaks it once this process is gone (as a reboot does here).
  if (disk.env->FileExists(std::string(kDb) + "/LOCK")) {
    if (op != FaultOp::kRename) return "LOCK left behind";
    testutil::Reboot(*disk.env, kDb);
  }
  std::string findings = testutil::VerifyFindings(*disk.env, kDb, kScratch);
  if (!findings.empty()) return findings;
  auto temporary = testutil::TemporaryFilesBelow(*disk.env, kDb);
  if (!temporary.empty()) return "temporary file left: " + temporary.front();
  const std::string diff_now = testutil::DiffFiles(at_new ? expected.files : expected.before_files,
                                                   testutil::FilesBelow(*disk.env, kDb, {"LOCK"}));
  if (!diff_now.empty()) return "after the failure: " + diff_now;
  Status rerun = testutil::RunSession(*disk.env, kDb, at_new ? Session{} : second, SmallBudget());
  if (!rerun.ok()) return "rerun: " + rerun.ToString();
  std::string diff = testutil::DiffFiles(expected.files, testutil::FilesBelow(*disk.env, kDb));
  if (!diff.empty()) return "after the rerun: " + diff;
  return "";
}

TEST_CASE("webdb sessions on a failing disk fail cleanly at every call", "[fault]") {
  testutil::GenOptions gen_options;
  gen_options.min_calls = 100;
  gen_options.max_calls = 300;
  testutil::SessionGenerator gen(81, gen_options);
  const Session first = gen.Next();
  Session second = gen.Next();
  while (second.size() < 100) second = gen.Next();
  // The uninterrupted run, counting the calls of each kind.
  Disk clean(first);
  Expected expected{clean.Dump(), {}, testutil::FilesBelow(*clean.env, kDb), {}};
  for (Op op : kOps) REQUIRE(clean.env->Inject({op.op, 1 << 30}).ok());
  REQUIRE(testutil::RunSession(*clean.env, kDb, second, SmallBudget()).ok());
  // Counted before the dump: its reader's pin makes calls of its own.
  std::map<FaultOp, int> seen;
  for (Op op : kOps) seen[op.op] = clean.env->seen(op.op);
  expected.after = clean.Dump();
  expected.files = testutil::FilesBelow(*clean.env, kDb);
  int runs = 0;
  std::vector<std::string> failures;
  for (Op op : kOps) {
    const int calls = seen[op.op];
    for (int error : kErrors) {
      for (int nth = 1; nth <= calls; ++nth) {
        ++runs;
        std::string failure = FailAt(first, second, expected, op.op, nth, error);
        if (!failure.empty()) {
          failures.push_back(std::string(op.name) + " " + std::to_string(nth) + " of " +
                             std::to_string(calls) + ", " + std::strerror(error) + ": " + failure);
        }
      }
    }
  }
  WARN("single machine: " << runs << " failing calls (" << std::size(kErrors)
                          << " errnos), " << failures.size() << " failures");
  for (size_t i = 0; i < failures.size() && i < 20; ++i) UNSCOPED_INFO(failures[i]);
  CHECK(failures.empty());
  CHECK(runs >= 300);
}

}  // namespace
}  // namespace webdb
