// Lease locks (docs/NUTCHFS.md, "Leases"): a lock its holder keeps by renewing it, kept on
// every machine of a share group as numbered records `<dir>/<name>.<epoch>` (a lock
// file of version 2, lock_owner.h). The highest epoch present is the lock; taking it
// means creating the next epoch's record with exclusive creation everywhere it can be
// reached, so two takers never both succeed, and epochs only grow.
//
// Nothing here compares the clocks of two machines: a holder judges its own lease by its
// monotonic clock since its last renewal, a taker or a watcher by seeing a record change
// (or not) over a lease on its own monotonic clock.
//
// A Lease renews itself on a thread of its own until it is released or destroyed; its
// methods are thread-safe. The free functions are stateless.
#ifndef NUTCHFS_LEASE_H_
#define NUTCHFS_LEASE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "nutchfs/env.h"
#include "nutchfs/lock_owner.h"

namespace nutchfs {

// One machine's copy of a lease: the lock directory there and the (unfenced) Env that
// reaches it; env is null, and why says why, when the machine cannot be reached.
struct LeasePlace {
  std::string machine;
  Env* env = nullptr;
  std::string dir;
  Status why;
};

struct LeaseRequest {
  std::string name;                // the lock's name, one path component
  std::string what;                // for messages: "lease crawl/w1/LOCK"
  std::vector<LeasePlace> places;  // every machine of the group, its home first
  LockOwner me;                    // the taker (CurrentProcess)
  int64_t lease_ms = 10000;
  bool home_may_be_gone = false;   // a takeover: the home need not be reached
};

class Lease {
 public:
  ~Lease();  // releases, as Release() does, ignoring errors
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  uint64_t epoch() const { return me_.epoch; }
  const LockOwner& owner() const { return me_; }
  // OK while the lease is held: a renewal at its anchor (the first machine where it was
  // taken: the group's home, or for a takeover whose home is gone the next machine of the
  // group) started in the last 7/8 of a lease succeeded, and no higher epoch was seen at
  // any machine. Otherwise an IOError saying why. No I/O.
  Status Check() const;
  // Stops renewing and marks the record released where it was taken (unless a successor's
  // epoch is there: then nothing is written). Check()'s error when the lease was lost
  // before (naming the lease, and the successor that took it), else the release's own;
  // OK when called again.
  Status Release();

 private:
  friend Result<std::unique_ptr<Lease>> TakeLease(LeaseRequest request);
  // taken_ns: the steady clock before the first record was created (the lease's start).
  Lease(LeaseRequest request, std::vector<LeasePlace> held, int64_t taken_ns);
  // Renews the record at held_[i] every quarter lease until stopped: one thread per
  // machine, so that one that hangs or cannot be reached delays no other.
  void Renew(size_t i);
  void Lose(std::string why);
  // Loses the lease when place p holds a higher epoch than this one's; errors are the
  // read's.
  Status LookForSuccessor(const LeasePlace& p);

  const LeaseRequest request_;
  LockOwner me_;
  const std::vector<LeasePlace> held_;
  const std::chrono::milliseconds lease_;
  // Steady clock: the start of the last renewal at the anchor (held_[0]) that succeeded.
  std::atomic<int64_t> renewed_ns_;
  std::atomic<bool> lost_{false};
  mutable std::mutex mu_;
  std::string lost_why_;  // guarded by mu_
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_
  bool released_ = false;
  std::vector<std::thread> renewers_;  // one per held_ place
};

// Takes the lease (the rule of docs/NUTCHFS.md, "Leases": at once when there is no
// record, a released one, or one of a gone process of this host; after watching it
// unchanged for a lease when its holder is elsewhere). Busy naming the holder when the
// lease is live; an error naming the home when it cannot be reached and
// home_may_be_gone is false.
Result<std::unique_ptr<Lease>> TakeLease(LeaseRequest request);

// The record of the highest epoch of lease `name` in dir, or nullopt when there is none.
Result<std::optional<LockOwner>> ReadLeaseRecord(Env& env, const std::string& dir,
                                                 const std::string& name);

// Ends the lease now: creates its next epoch as a released record (any holder loses the
// lease at its next renewal). Busy for a live process of this host. Returns what was
// ended, for messages; NotFound when it is not held (no record, or a released one).
Result<std::string> BreakLease(LeaseRequest request);

}  // namespace nutchfs

#endif  // NUTCHFS_LEASE_H_
