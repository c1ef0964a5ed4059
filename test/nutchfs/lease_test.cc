// Lease locks (nutchfs/lease.h): epochs taken at every machine of a group, refused while
// live, taken over once not renewed for a lease, lost by a holder that was taken over;
// and the fence (nutchfs/fenced_env.h) that stops a holder that lost its lease.
#include "nutchfs/lease.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <utility>
#include <thread>

#include "nutchfs/fault_env.h"
#include "nutchfs/fenced_env.h"
#include "nutchfs/lock_owner.h"
#include "test/util/temp_dir.h"

namespace {

using nutchfs::LeasePlace;
using nutchfs::LeaseRequest;
using nutchfs::LockOwner;

// A group of two machines a (the home) and b, each a directory under root.
LeaseRequest Request(nutchfs::Env* env, const std::string& root, int64_t lease_ms) {
  LeaseRequest r;
  r.name = "LOCK";
  r.what = "lease w0/LOCK";
  r.lease_ms = lease_ms;
  r.me = nutchfs::CurrentProcess("a");
  for (const char* m : {"a", "b"}) r.places.push_back({m, env, root + "/" + m + "/.locks", {}});
  return r;
}

// The same request made by a process of another host (a holder this host cannot judge).
LeaseRequest Elsewhere(LeaseRequest r) {
  r.me.host = "elsewhere";
  r.me.boot_id = "other-boot";
  return r;
}

std::string RecordAt(const std::string& root, const char* machine, uint64_t epoch) {
  return root + "/" + machine + "/.locks/LOCK." + std::to_string(epoch);
}

// Creates at both machines the record of epoch `epoch` of a holder on another host.
void PlaceRecordElsewhere(nutchfs::Env& env, const std::string& root, uint64_t epoch,
                          int64_t lease_ms) {
  LockOwner owner = Elsewhere(Request(&env, root, lease_ms)).me;
  owner.epoch = epoch;
  owner.lease_ms = lease_ms;
  for (const char* m : {"a", "b"}) {
    REQUIRE(env.CreateDirs(root + "/" + m + "/.locks").ok());
    REQUIRE(env.CreateExclusive(RecordAt(root, m, epoch), nutchfs::EncodeLockOwner(owner)).ok());
  }
}

// Waits (up to a minute, for a loaded machine) until lease.Check() fails.
nutchfs::Status LostWithin(const nutchfs::Lease& lease) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (lease.Check().ok() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return lease.Check();
}

// Forwards to another Env, running `before_create` once before the first CreateExclusive:
// a taker paused between the machines of its group while another run acts.
class PausingEnv final : public nutchfs::Env {
 public:
  PausingEnv(nutchfs::Env& base, std::function<void()> before_create)
      : base_(base), before_create_(std::move(before_create)) {}
  nutchfs::Result<std::unique_ptr<nutchfs::SequentialFile>> NewSequentialFile(
      const std::string& path) override {
    return base_.NewSequentialFile(path);
  }
  nutchfs::Result<std::unique_ptr<nutchfs::RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    return base_.NewRandomAccessFile(path);
  }
  nutchfs::Result<std::unique_ptr<nutchfs::WritableFile>> NewWritableFile(
      const std::string& path) override {
    return base_.NewWritableFile(path);
  }
  nutchfs::Status CreateExclusive(const std::string& path, std::string_view contents) override {
    if (before_create_) std::exchange(before_create_, nullptr)();
    return base_.CreateExclusive(path, contents);
  }
  bool FileExists(const std::string& path) override { return base_.FileExists(path); }
  nutchfs::Result<uint64_t> GetFileSize(const std::string& path) override {
    return base_.GetFileSize(path);
  }
  nutchfs::Result<std::vector<std::string>> GetChildren(const std::string& dir) override {
    return base_.GetChildren(dir);
  }
  nutchfs::Status RenameFile(const std::string& from, const std::string& to) override {
    return base_.RenameFile(from, to);
  }
  nutchfs::Status RemoveFile(const std::string& path) override { return base_.RemoveFile(path); }
  nutchfs::Status CreateDirs(const std::string& dir) override { return base_.CreateDirs(dir); }
  nutchfs::Status RemoveDirRecursively(const std::string& dir) override {
    return base_.RemoveDirRecursively(dir);
  }
  nutchfs::Status SyncDir(const std::string& dir) override { return base_.SyncDir(dir); }

 private:
  nutchfs::Env& base_;
  std::function<void()> before_create_;
};

}  // namespace

TEST_CASE("a lease takes the next epoch at every machine and is refused while live",
          "[nutchfs][lease]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto first = nutchfs::TakeLease(Request(env.get(), dir.path(), 60000));
  REQUIRE(first);
  CHECK((*first)->epoch() == 1);
  CHECK((*first)->Check().ok());
  for (const char* m : {"a", "b"}) CHECK(env->FileExists(RecordAt(dir.path(), m, 1)));

  auto second = nutchfs::TakeLease(Request(env.get(), dir.path(), 60000));
  REQUIRE_FALSE(second);
  CHECK(second.error().IsBusy());
  CHECK_THAT(second.error().message(), Catch::Contains("held by live pid"));
  CHECK_THAT(second.error().message(), Catch::Contains("epoch 1"));

  REQUIRE((*first)->Release().ok());
  auto record = nutchfs::ReadLeaseRecord(*env, dir.path() + "/b/.locks", "LOCK");
  REQUIRE(record);
  REQUIRE(record->has_value());
  CHECK((*record)->released);
  CHECK((*record)->epoch == 1);

  auto third = nutchfs::TakeLease(Request(env.get(), dir.path(), 60000));
  REQUIRE(third);
  CHECK((*third)->epoch() == 2);
  // The older epoch is history: only the lock's record is left.
  for (const char* m : {"a", "b"}) {
    CHECK_FALSE(env->FileExists(RecordAt(dir.path(), m, 1)));
    CHECK(env->FileExists(RecordAt(dir.path(), m, 2)));
  }
}

TEST_CASE("a lease record of version 2 encodes and decodes and a mix of versions is Corruption",
          "[nutchfs][lease]") {
  LockOwner o = nutchfs::CurrentProcess("m1");
  o.epoch = 7;
  o.lease_ms = 1234;
  o.renewals = 9;
  o.released = true;
  const std::string text = nutchfs::EncodeLockOwner(o);
  CHECK(text.starts_with("nutchfs-lock 2\n"));
  auto back = nutchfs::DecodeLockOwner(text, "x");
  REQUIRE(back);
  CHECK(*back == o);
  std::string v1 = text;
  v1.replace(0, 14, "nutchfs-lock 1");
  CHECK(nutchfs::DecodeLockOwner(v1, "x").error().IsCorruption());
  std::string bad = text;
  bad.replace(bad.find("released=1"), 10, "released=2");
  CHECK(nutchfs::DecodeLockOwner(bad, "x").error().IsCorruption());
}

TEST_CASE("a lease of another host is taken over, without unlock, once not renewed for a lease",
          "[nutchfs][lease]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  // A holder elsewhere that stopped renewing: its record stays as it was.
  PlaceRecordElsewhere(*env, dir.path(), 3, 300);
  const auto start = std::chrono::steady_clock::now();
  auto taken = nutchfs::TakeLease(Request(env.get(), dir.path(), 300));
  REQUIRE(taken);
  CHECK((*taken)->epoch() == 4);
  // It watched the record unchanged for a whole lease before taking over.
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(300));
}

TEST_CASE("a machine of the group that fails every renewal costs the lease nothing",
          "[nutchfs][lease]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto faults = nutchfs::NewFaultEnv(env.get());
  LeaseRequest r = Request(env.get(), dir.path(), 2000);
  r.places[1].env = faults.get();
  auto lease = nutchfs::TakeLease(r);
  REQUIRE(lease);
  // Machine b (not the anchor) is lost: every listing of its lock directory fails.
  nutchfs::FaultSpec lost;
  lost.op = nutchfs::FaultOp::kGetChildren;
  lost.times = -1;
  REQUIRE(faults->Inject(lost).ok());
  // Five renewals failed there, a quarter lease apart: longer than the lease.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (faults->fired() < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(faults->fired() >= 5);
  CHECK((*lease)->Check().ok());
  // A successor's epoch there still ends it.
  faults->Clear();
  REQUIRE(env->CreateExclusive(RecordAt(dir.path(), "b", 2), "").ok());
  CHECK_THAT(LostWithin(**lease).message(), Catch::Contains("taken over by epoch 2"));
}

TEST_CASE("a lease of another host that is renewed is not taken", "[nutchfs][lease]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  // The holder renews every 100 ms; the taker watches for up to 8 s to see it.
  auto holder = nutchfs::TakeLease(Elsewhere(Request(env.get(), dir.path(), 400)));
  REQUIRE(holder);
  auto taker = nutchfs::TakeLease(Request(env.get(), dir.path(), 8000));
  REQUIRE_FALSE(taker);
  CHECK(taker.error().IsBusy());
  CHECK_THAT(taker.error().message(), Catch::Contains("on host elsewhere"));
  CHECK_THAT(taker.error().message(), Catch::Contains("renewed within its lease"));
  CHECK((*holder)->Check().ok());
}

TEST_CASE("a holder whose lease was ended loses it, and its fence refuses every change",
          "[nutchfs][lease]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto holder = nutchfs::TakeLease(Elsewhere(Request(env.get(), dir.path(), 400)));
  REQUIRE(holder);
  nutchfs::Fence fence;
  fence.Set([&] { return (*holder)->Check(); });
  auto fenced = nutchfs::NewFencedEnv(env.get(), &fence);
  const std::string kept = dir.path() + "/a/kept";
  REQUIRE(nutchfs::WriteFileAtomically(*fenced, kept, "before").ok());

  auto ended = nutchfs::BreakLease(Request(env.get(), dir.path(), 400));
  REQUIRE(ended);
  CHECK_THAT(*ended, Catch::Contains("on host elsewhere"));
  const nutchfs::Status lost = LostWithin(**holder);
  REQUIRE_FALSE(lost.ok());
  CHECK_THAT(lost.message(), Catch::Contains("taken over by epoch 2"));

  CHECK_FALSE(fenced->NewWritableFile(dir.path() + "/a/new").has_value());
  CHECK_FALSE(fenced->RemoveFile(kept).ok());
  CHECK_FALSE(fenced->RenameFile(kept, kept + ".moved").ok());
  CHECK_FALSE(fenced->CreateDirs(dir.path() + "/a/newdir").ok());
  CHECK_FALSE(fenced->RemoveDirRecursively(dir.path() + "/a").ok());
  CHECK_FALSE(env->FileExists(dir.path() + "/a/new"));
  CHECK_FALSE(env->FileExists(dir.path() + "/a/newdir"));
  auto read = nutchfs::ReadFileToString(*fenced, kept);  // reads pass
  REQUIRE(read);
  CHECK(*read == "before");

  // Its release reports the loss (the lease, its epoch, the successor) and leaves the
  // successor's record alone; released again, it has nothing more to say.
  const nutchfs::Status released = (*holder)->Release();
  REQUIRE_FALSE(released.ok());
  CHECK_THAT(released.message(), Catch::Contains("lease w0/LOCK (epoch 1): lost its lease") &&
                                     Catch::Contains("taken over by epoch 2 (pid "));
  CHECK((*holder)->Release().ok());
  auto record = nutchfs::ReadLeaseRecord(*env, dir.path() + "/a/.locks", "LOCK");
  REQUIRE(record);
  REQUIRE(record->has_value());
  CHECK((*record)->epoch == 2);
  CHECK((*record)->host != "elsewhere");
}

TEST_CASE("a file being written when the lease is lost is refused at its next write",
          "[nutchfs][lease]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  bool held = true;
  nutchfs::Fence fence;
  fence.Set([&] { return held ? nutchfs::Status::OK() : nutchfs::Status::IOError("lost"); });
  auto fenced = nutchfs::NewFencedEnv(env.get(), &fence);
  auto file = fenced->NewWritableFile(dir.path() + "/f");
  REQUIRE(file);
  REQUIRE((*file)->Append("one").ok());
  held = false;
  CHECK((*file)->Append("two").message() == "lost");
  CHECK((*file)->Sync().message() == "lost");
  CHECK((*file)->Close().message() == "lost");
  auto read = nutchfs::ReadFileToString(*env, dir.path() + "/f");
  REQUIRE(read);
  CHECK(*read == "one");
}

TEST_CASE("a lease must reach its home unless the run is a takeover", "[nutchfs][lease]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  LeaseRequest r = Request(env.get(), dir.path(), 60000);
  r.places[0].env = nullptr;
  r.places[0].why = nutchfs::Status::IOError("machine a: connection refused");
  auto refused = nutchfs::TakeLease(r);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().ToString(), Catch::Contains("home machine a cannot be reached"));
  CHECK_FALSE(env->FileExists(RecordAt(dir.path(), "b", 1)));

  r.home_may_be_gone = true;
  auto taken = nutchfs::TakeLease(r);
  REQUIRE(taken);
  CHECK((*taken)->epoch() == 1);
  CHECK(env->FileExists(RecordAt(dir.path(), "b", 1)));
  CHECK_FALSE(env->FileExists(RecordAt(dir.path(), "a", 1)));
}

TEST_CASE("a taker paused between its machines while another run took the lease holds nothing",
          "[nutchfs][lease]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  // The taker created epoch 1 at its home a and stopped before machine b; meanwhile a
  // successor saw epoch 1 unrenewed for a lease and took epoch 2 at both machines.
  PausingEnv at_b(*env, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    PlaceRecordElsewhere(*env, dir.path(), 2, 400);
  });
  LeaseRequest request = Request(env.get(), dir.path(), 400);
  request.places[1].env = &at_b;
  auto resumed = nutchfs::TakeLease(request);
  REQUIRE(resumed);
  CHECK((*resumed)->epoch() == 1);
  // Resumed, it holds nothing: its lease ran out while it was stopped, and its renewals
  // find the successor's epoch.
  CHECK_THAT((*resumed)->Check().message(), Catch::Contains("lost its lease"));
  CHECK_THAT((*resumed)->Release().message(),
             Catch::Contains("lease w0/LOCK (epoch 1): lost its lease"));
  for (const char* m : {"a", "b"}) {
    auto record = nutchfs::ReadLeaseRecord(*env, dir.path() + "/" + m + "/.locks", "LOCK");
    REQUIRE(record);
    REQUIRE(record->has_value());
    CHECK((*record)->epoch == 2);
    CHECK_FALSE((*record)->released);
  }
}
