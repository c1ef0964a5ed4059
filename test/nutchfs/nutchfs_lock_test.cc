// NutchFS locks: exclusive lock files on the group's home machine, the stale-lock rule,
// and what a lock file records.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <catch2/catch.hpp>
#include <chrono>
#include <limits>
#include <thread>

#include "nutchfs/clock.h"
#include "nutchfs/fault_env.h"
#include "nutchfs/lock_file.h"
#include "nutchfs/lock_owner.h"
#include "nutchfs/nutchfs.h"
#include "test/util/temp_dir.h"

using nutchfs::LockOwner;
using nutchfs::NutchFile;
using nutchfs::NutchFs;

namespace {

nutchfs::ClusterConfig Config(const std::string& root) {
  std::string text = "db = crawl\nlock_lease_ms = 60000\n";
  text += "[machine.a]\nlocation = " + root + "/a\n[machine.b]\nlocation = " + root + "/b\n";
  text += "[group.ab]\nmachines = a, b\n";
  auto config = nutchfs::ClusterConfig::Parse(text, root + "/test.conf");
  REQUIRE(config);
  return *config;
}

std::unique_ptr<NutchFs> OpenFs(const nutchfs::ClusterConfig& config, const std::string& machine) {
  auto fs = NutchFs::Open(config, machine);
  REQUIRE(fs);
  return std::move(*fs);
}

const NutchFile kLock{"crawl", "ab", "update"};

// A pid that certainly no longer runs: a child that has exited and been reaped.
int64_t DeadPid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

// Plants a lock file for `owner` where NutchFs keeps kLock (home machine a).
void Plant(const std::string& root, const std::string& contents) {
  auto env = nutchfs::NewLocalEnv();
  REQUIRE(env->CreateDirs(root + "/a/crawl/ab/.locks").ok());
  REQUIRE(env->CreateExclusive(root + "/a/crawl/ab/.locks/update", contents).ok());
}

}  // namespace

TEST_CASE("a lock is exclusive until unlocked", "[nutchfs]") {
  testutil::TempDir dir;
  auto config = Config(dir.path());
  auto a = OpenFs(config, "a");
  auto b = OpenFs(config, "b");
  auto held = a->Lock(kLock);
  REQUIRE(held);
  auto refused = b->Lock(kLock);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().IsBusy());
  CHECK_THAT(refused.error().message(),
             Catch::Contains("pid " + std::to_string(::getpid())) && Catch::Contains("machine a"));
  REQUIRE(a->Unlock(*held).ok());
  CHECK(a->Unlock(*held).IsNotFound());
  auto taken = b->Lock(kLock);
  REQUIRE(taken);
  CHECK(a->Unlock(*held).IsBusy());  // a's old handle cannot release b's lock
  CHECK(b->ListLocks("crawl", "ab")->size() == 1);
  REQUIRE(b->Unlock(*taken).ok());
  CHECK(b->ListLocks("crawl", "ab")->empty());
}

TEST_CASE("a lock file records its owner", "[nutchfs]") {
  testutil::TempDir dir;
  auto b = OpenFs(Config(dir.path()), "b");
  const int64_t before = nutchfs::NowMs();
  auto held = b->Lock(kLock);
  REQUIRE(held);
  CHECK(nutchfs::NewLocalEnv()->FileExists(dir.path() + "/a/crawl/ab/.locks/update"));
  auto locks = b->ListLocks("crawl", "ab");
  REQUIRE(locks);
  REQUIRE(locks->size() == 1);
  const nutchfs::LockInfo& info = locks->front();
  CHECK(info.lock == kLock);
  CHECK(info.machine == "a");  // the group's home machine
  REQUIRE(info.owner);
  CHECK(info.owner->machine == "b");
  CHECK(info.owner->pid == ::getpid());
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  CHECK(info.owner->host == host);
  CHECK(info.owner->acquired_ms >= before);
  CHECK(info.owner->acquired_ms <= nutchfs::NowMs());
  CHECK(info.owner->proc_start > 0);
  CHECK_FALSE(info.owner->boot_id.empty());
  CHECK(*info.owner == held->owner);
  CHECK_FALSE(b->Lock(NutchFile{"crawl", "ab", "a/b"}));  // lock names are one component
}

TEST_CASE("a lock of a dead process on this host is broken by the next Lock", "[nutchfs]") {
  testutil::TempDir dir;
  auto a = OpenFs(Config(dir.path()), "a");
  LockOwner dead = nutchfs::CurrentProcess("a");
  dead.pid = DeadPid();
  dead.proc_start = 0;
  Plant(dir.path(), nutchfs::EncodeLockOwner(dead));
  auto held = a->Lock(kLock);
  REQUIRE(held);
  CHECK(held->owner.pid == ::getpid());
}

TEST_CASE("a lock taken on this host before a reboot is broken by the next Lock", "[nutchfs]") {
  testutil::TempDir dir;
  auto a = OpenFs(Config(dir.path()), "a");
  LockOwner before_reboot = nutchfs::CurrentProcess("a");
  before_reboot.boot_id = "00000000-0000-0000-0000-000000000000";
  before_reboot.acquired_ms = nutchfs::NowMs();  // young: the lease does not matter
  Plant(dir.path(), nutchfs::EncodeLockOwner(before_reboot));
  auto held = a->Lock(kLock);
  REQUIRE(held);
  CHECK(held->owner.token != before_reboot.token);
  REQUIRE(a->Unlock(*held).ok());
  Plant(dir.path(), nutchfs::EncodeLockOwner(before_reboot));
  auto broke = a->BreakLock(kLock, /*force=*/false);
  REQUIRE(broke);
  CHECK_THAT(*broke, Catch::Contains("rebooted"));
}

TEST_CASE("a reused pid does not keep a stale lock alive", "[nutchfs]") {
  testutil::TempDir dir;
  auto a = OpenFs(Config(dir.path()), "a");
  LockOwner earlier = nutchfs::CurrentProcess("a");
  earlier.proc_start += 12345;  // same pid, but a process started at another time
  Plant(dir.path(), nutchfs::EncodeLockOwner(earlier));
  CHECK(a->Lock(kLock));
}

TEST_CASE("a live lock on this host is never broken, even by force", "[nutchfs]") {
  testutil::TempDir dir;
  auto a = OpenFs(Config(dir.path()), "a");
  auto held = a->Lock(kLock);
  REQUIRE(held);
  auto refused = a->BreakLock(kLock, /*force=*/true);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().IsBusy());
  CHECK_THAT(refused.error().message(), Catch::Contains("live"));
}

TEST_CASE("another host's lock breaks only when forced and older than the lease", "[nutchfs]") {
  testutil::TempDir dir;
  auto a = OpenFs(Config(dir.path()), "a");  // lease 60 s
  LockOwner remote = nutchfs::CurrentProcess("b");
  remote.host = "elsewhere.example";
  remote.acquired_ms = nutchfs::NowMs() - 10000;
  Plant(dir.path(), nutchfs::EncodeLockOwner(remote));
  CHECK(a->Lock(kLock).error().IsBusy());
  CHECK(a->BreakLock(kLock, true).error().IsBusy());  // young
  REQUIRE(a->ListLocks("crawl", "ab")->size() == 1);

  testutil::TempDir dir2;
  auto a2 = OpenFs(Config(dir2.path()), "a");
  remote.acquired_ms = nutchfs::NowMs() - 120000;
  Plant(dir2.path(), nutchfs::EncodeLockOwner(remote));
  auto unforced = a2->BreakLock(kLock, false);
  REQUIRE_FALSE(unforced);
  CHECK_THAT(unforced.error().message(), Catch::Contains("force"));
  CHECK(a2->Lock(kLock).error().IsBusy());  // Lock itself never forces
  auto forced = a2->BreakLock(kLock, true);
  REQUIRE(forced);
  CHECK_THAT(*forced, Catch::Contains("elsewhere.example"));
  CHECK(a2->Lock(kLock));
  CHECK(a2->BreakLock(NutchFile{"crawl", "ab", "none"}, true).error().IsNotFound());
}

TEST_CASE("an unreadable lock file needs force", "[nutchfs]") {
  testutil::TempDir dir;
  auto a = OpenFs(Config(dir.path()), "a");
  Plant(dir.path(), "");
  CHECK(a->Lock(kLock).error().IsBusy());
  auto locks = a->ListLocks("crawl", "ab");
  REQUIRE(locks->size() == 1);
  CHECK(locks->front().owner.error().IsCorruption());
  CHECK(a->BreakLock(kLock, false).error().IsBusy());
  CHECK(a->BreakLock(kLock, true));
  CHECK(a->Lock(kLock));
}

TEST_CASE("of many threads taking one lock, exactly one wins", "[nutchfs]") {
  testutil::TempDir dir;
  auto a = OpenFs(Config(dir.path()), "a");
  std::atomic<int> winners{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      if (a->Lock(kLock)) ++winners;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(winners == 1);
}

// Issue 36, item 17: of eight concurrent applies, losers failed with "LOCK: no such file
// or directory": the winner's clean-up removed the temporary file a loser was about to
// link as LOCK (CreateExclusive then fails NotFound), instead of the loser naming the
// holder.
TEST_CASE("a lock whose temporary file vanishes before it is linked is tried again",
          "[nutchfs][fault]") {
  testutil::TempDir dir;
  auto local = nutchfs::NewLocalEnv();
  auto env = nutchfs::NewFaultEnv(local.get());
  const std::string path = dir.File("db/LOCK");
  const LockOwner me = nutchfs::CurrentProcess("m");
  REQUIRE(env->Inject({nutchfs::FaultOp::kCreateExclusive, 1, nutchfs::FaultKind::kError, 1, 0,
                       ENOENT})
              .ok());
  nutchfs::Status taken = nutchfs::AcquireLockFile(*env, path, me);
  INFO(taken.ToString());
  CHECK(taken.ok());
  CHECK(nutchfs::ReadLockFile(*local, path)->token == me.token);
  // Held: a second process's vanished temporary file ends in the holder's name.
  REQUIRE(env->Inject({nutchfs::FaultOp::kCreateExclusive, 1, nutchfs::FaultKind::kError, 1, 0,
                       ENOENT})
              .ok());
  nutchfs::Status busy = nutchfs::AcquireLockFile(*env, path, nutchfs::CurrentProcess("other"));
  CHECK(busy.IsBusy());
  CHECK_THAT(busy.message(), Catch::Contains("held by live pid"));
  // A lock directory that is gone for good is NotFound after the tries.
  REQUIRE(env->Inject({nutchfs::FaultOp::kCreateExclusive, 1, nutchfs::FaultKind::kError, -1, 0,
                       ENOENT})
              .ok());
  CHECK(nutchfs::AcquireLockFile(*env, dir.File("x/LOCK"), me).IsNotFound());
}

TEST_CASE("lock owners encode and decode, bad files are Corruption", "[nutchfs]") {
  LockOwner o = nutchfs::CurrentProcess("m1");
  auto back = nutchfs::DecodeLockOwner(nutchfs::EncodeLockOwner(o), "/x/LOCK");
  REQUIRE(back);
  CHECK(*back == o);
  CHECK(nutchfs::CurrentProcess("m1").token != o.token);
  for (std::string bad :
       {std::string(), std::string("nutchfs-lock 1\n"), std::string("nutchfs-lock 1\npid=x\n"),
        std::string("garbage\n"), nutchfs::EncodeLockOwner(o) + "extra=1\n"}) {
    auto r = nutchfs::DecodeLockOwner(bad, "/x/LOCK");
    REQUIRE_FALSE(r);
    CHECK(r.error().IsCorruption());
    CHECK_THAT(r.error().message(), Catch::Contains("/x/LOCK"));
  }
  CHECK(nutchfs::ProcessAlive(::getpid(), o.proc_start));
  CHECK_FALSE(nutchfs::ProcessAlive(DeadPid(), 0));
  CHECK_FALSE(nutchfs::ProcessAlive(::getpid(), o.proc_start + 1));
}

// Regression (lock_owner_fuzz, UBSan): the age of another host's lock was now minus the
// file's acquired_ms, which overflows for a time far in the past or future.
TEST_CASE("a lock file's time far from now gives an age, not an overflow", "[nutchfs]") {
  const char kFuzzInput[] =
      "nutchfs-lock 1\nmachine=\nhost=host-a.example\n"
      "boot_id=8b0e7e1c-0e6f-4a4e-9d3e-2f1c0d9b7a61\npid=4242\nproc_start=123456\n"
      "acquired_ms=-1\ntoken=5f3a9c1d\n";
  LockOwner me = nutchfs::CurrentProcess("m");
  auto owner = nutchfs::DecodeLockOwner(kFuzzInput, "/g/LOCK");
  REQUIRE(owner);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto verdict = nutchfs::JudgeLock(owner, me, kMax, 3600000, true);
  CHECK(verdict.breakable);
  CHECK_THAT(verdict.reason, Catch::Contains("older than the lease"));

  LockOwner ancient = *owner;
  ancient.acquired_ms = std::numeric_limits<int64_t>::min();
  verdict = nutchfs::JudgeLock(ancient, me, nutchfs::NowMs(), 3600000, true);
  CHECK(verdict.breakable);
  LockOwner future = *owner;
  future.acquired_ms = kMax;
  verdict = nutchfs::JudgeLock(future, me, -nutchfs::NowMs(), 3600000, true);
  CHECK_FALSE(verdict.breakable);
  CHECK_THAT(verdict.reason, Catch::Contains("younger than the lease"));
}
