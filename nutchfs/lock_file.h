// Lock files: exclusive locks built on files created with O_EXCL (Env::CreateExclusive)
// in one directory of one Env, holding a LockOwner (lock_owner.h). No flock or fcntl:
// those are not reliable on NFS and do not exist over SFTP.
//
// Removing a lock (release or break) first renames it to a private name beside it
// (a hidden temporary name, see publish.h), reads it back, and deletes it only if it is
// the lock that was meant; a lock replaced in between is put back with CreateExclusive.
// So a release never removes a lock someone else has taken since.
// Stateless functions; thread-safe as the Env is.
#ifndef NUTCHFS_LOCK_FILE_H_
#define NUTCHFS_LOCK_FILE_H_

#include <cstdint>
#include <string>

#include "nutchfs/env.h"
#include "nutchfs/lock_owner.h"

namespace nutchfs {

// Creates the lock file at path for `me`, creating its directory. If a lock is there and
// the stale-lock rule lets it be broken without force (its process on this host is
// gone), breaks it and tries once more. Busy, naming the holder, otherwise.
Status AcquireLockFile(Env& env, const std::string& path, const LockOwner& me);

// Removes the lock at path if `me` holds it (same token). NotFound if there is no lock,
// Busy if another owner holds it.
Status ReleaseLockFile(Env& env, const std::string& path, const LockOwner& me);

// Breaks the lock at path if the stale-lock rule allows (see lock_owner.h) and returns
// why it was breakable; Busy with the reason if not; NotFound if there is no lock.
Result<std::string> BreakLockFile(Env& env, const std::string& path, const LockOwner& me,
                                  int64_t now_ms, int64_t lease_ms, bool force);

// Whether BreakLockFile with force and no lease, what the unlock commands do, would
// remove the lock at path now: false if there is none or a live process on this host
// holds it. For messages that suggest such a command only where it would work.
bool BreakableByForce(Env& env, const std::string& path);

// The owner recorded in the lock file at path (Corruption if unreadable).
Result<LockOwner> ReadLockFile(Env& env, const std::string& path);

}  // namespace nutchfs

#endif  // NUTCHFS_LOCK_FILE_H_
