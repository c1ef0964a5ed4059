#include "webdb/util/deferred_syncs.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

namespace webdb {
namespace {

// What happened to a file: its Sync and Close, in order.
struct Record {
  std::string calls;
};

// A written file whose Sync waits (at most ten seconds) until the test lets it go, and
// fails if told to.
class HeldFile final : public nutchfs::WritableFile {
 public:
  HeldFile(std::string path, Record& record, std::shared_future<void> go, Status sync_result)
      : path_(std::move(path)), record_(record), go_(std::move(go)), sync_result_(sync_result) {}

  Status Append(std::string_view) override { return Status::OK(); }
  Status Flush() override { return Status::OK(); }
  Status Sync() override {
    if (go_.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      record_.calls += "timed out;";
    }
    record_.calls += "sync;";
    return sync_result_;
  }
  Status Close() override {
    record_.calls += "close;";
    return Status::OK();
  }
  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  Record& record_;
  std::shared_future<void> go_;
  const Status sync_result_;
};

TEST_CASE("deferred syncs: files are synced and closed while the caller goes on") {
  std::promise<void> go;
  std::shared_future<void> released = go.get_future().share();
  Record a, b;
  DeferredSyncs syncs;
  syncs.Add(std::make_unique<HeldFile>("a", a, released, Status::OK()), "stage 1");
  syncs.Add(std::make_unique<HeldFile>("b", b, released, Status::OK()), "stage 2");
  // Add returned with both syncs held: they run on threads of their own.
  CHECK(a.calls.empty());
  CHECK(b.calls.empty());
  go.set_value();
  CHECK(syncs.Wait().ok());
  CHECK(a.calls == "sync;close;");
  CHECK(b.calls == "sync;close;");
  CHECK(syncs.Wait().ok());  // nothing left to wait for
}

TEST_CASE("deferred syncs: Wait reports the first failure in the order the files came") {
  std::promise<void> go;
  go.set_value();
  std::shared_future<void> released = go.get_future().share();
  Record a, b, c;
  DeferredSyncs syncs;
  syncs.Add(std::make_unique<HeldFile>("a", a, released, Status::OK()), "stage 1 pagesByURL");
  syncs.Add(std::make_unique<HeldFile>("b", b, released, Status::IOError("sync b: EIO")),
            "stage 4 linksByURL");
  syncs.Add(std::make_unique<HeldFile>("c", c, released, Status::IOError("sync c: ENOSPC")),
            "stage 5 linksByMD5 fixes");
  Status s = syncs.Wait();
  CHECK(s.IsIOError());
  CHECK(s.message() == "stage 4 linksByURL: sync b: EIO");
  CHECK(a.calls == "sync;close;");
  CHECK(b.calls == "sync;");  // a file that failed to sync is not closed as if it were
  CHECK(c.calls == "sync;");
}

TEST_CASE("deferred syncs: destroyed, they wait for the files still syncing") {
  std::promise<void> go;
  std::shared_future<void> released = go.get_future().share();
  Record a;
  std::future<void> later;
  {
    DeferredSyncs syncs;
    syncs.Add(std::make_unique<HeldFile>("a", a, released, Status::OK()), "stage 1");
    later = std::async(std::launch::async, [&go] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      go.set_value();
    });
  }
  CHECK(a.calls == "sync;close;");
  later.get();
}

}  // namespace
}  // namespace webdb
