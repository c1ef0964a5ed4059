// LockOwner: who holds a NutchFS lock, as written into the lock file when it is created
// with O_EXCL, and the rule that decides when a lock may be broken.
//
// The stale-lock rule (docs/NUTCHFS.md, "Locks"):
//  - Same host (same hostname and same kernel boot id): the lock is stale when its
//    process is gone, or its pid now belongs to a process started at another time.
//    A stale lock may be broken without force; a live one never.
//  - Same hostname, another boot id: taken before this host rebooted, so its process
//    is gone; broken without force.
//  - Another host: its processes cannot be checked from
//    here, so the lock may be broken only with force AND when older than the lease
//    (by the breaker's clock; the lease must exceed any clock skew).
//  - An unreadable lock file (e.g. its creator died between create and write): force.
// Plain values and pure functions, except CurrentProcess and ProcessAlive, which look
// at this machine. Thread-safe.
#ifndef NUTCHFS_LOCK_OWNER_H_
#define NUTCHFS_LOCK_OWNER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "nutchfs/status.h"

namespace nutchfs {

struct LockOwner {
  std::string machine;  // NutchFS machine name of the holder; empty if none
  std::string host;     // hostname
  std::string boot_id;  // /proc/sys/kernel/random/boot_id
  int64_t pid = 0;
  uint64_t proc_start = 0;  // process start, clock ticks after boot (/proc/PID/stat)
  int64_t acquired_ms = 0;  // wall clock when taken, ms since the epoch
  std::string token;        // random; tells one acquisition from another
  // A lease lock's record (docs/NUTCHFS.md, "Leases"); epoch 0 for a plain lock.
  uint64_t epoch = 0;
  int64_t lease_ms = 0;
  uint64_t renewals = 0;  // changes at every renewal: how watchers see the lease live
  bool released = false;

  friend bool operator==(const LockOwner&, const LockOwner&) = default;
};

// "nutchfs-lock 1\nkey=value\n..." with the fields above; version 2, with the four lease
// fields as well, for a lease record (epoch > 0). docs/FORMAT.md, "Lock files".
std::string EncodeLockOwner(const LockOwner& owner);
// Corruption naming path when text is not an encoded LockOwner.
Result<LockOwner> DecodeLockOwner(std::string_view text, const std::string& path);

// This process now, with a fresh token.
LockOwner CurrentProcess(std::string machine);
// "pid 12 on host x (machine m)", for messages.
std::string DescribeOwner(const LockOwner& owner);
// Whether pid runs on this host and, if proc_start is not 0, started at proc_start.
bool ProcessAlive(int64_t pid, uint64_t proc_start);

struct LockVerdict {
  bool breakable = false;
  std::string reason;  // why, for messages: "pid 12 on host x is gone"
};

// Applies the stale-lock rule to a lock whose file decoded to `owner` (or failed to),
// judged by `me` at now_ms.
LockVerdict JudgeLock(const Result<LockOwner>& owner, const LockOwner& me, int64_t now_ms,
                      int64_t lease_ms, bool force);

}  // namespace nutchfs

#endif  // NUTCHFS_LOCK_OWNER_H_
