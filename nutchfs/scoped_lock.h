// ScopedLock: a lock file (lock_file.h) held for the life of an object — taken by
// Acquire, released by Release() or, ignoring errors, by the destructor. Used by the
// webdb writer (its db's LOCK) and the distributed writer (its section's LOCK).
// Not thread-safe.
#ifndef NUTCHFS_SCOPED_LOCK_H_
#define NUTCHFS_SCOPED_LOCK_H_

#include <memory>
#include <string>

#include "nutchfs/env.h"
#include "nutchfs/lock_owner.h"

namespace nutchfs {

class ScopedLock {
 public:
  // Takes the lock at path for this process; `machine` names the holder in the file.
  static Result<std::unique_ptr<ScopedLock>> Acquire(Env& env, const std::string& path,
                                                     std::string machine);
  ScopedLock(const ScopedLock&) = delete;
  ScopedLock& operator=(const ScopedLock&) = delete;
  ~ScopedLock();

  // Releases the lock (once; later calls return OK).
  Status Release();

 private:
  ScopedLock(Env& env, std::string path, LockOwner me)
      : env_(env), path_(std::move(path)), me_(std::move(me)) {}

  Env& env_;
  const std::string path_;
  const LockOwner me_;
  bool held_ = true;
};

}  // namespace nutchfs

#endif  // NUTCHFS_SCOPED_LOCK_H_
