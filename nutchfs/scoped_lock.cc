#include "nutchfs/scoped_lock.h"

#include "nutchfs/lock_file.h"

namespace nutchfs {

Result<std::unique_ptr<ScopedLock>> ScopedLock::Acquire(Env& env, const std::string& path,
                                                        std::string machine) {
  LockOwner me = CurrentProcess(std::move(machine));
  NUTCHFS_RETURN_IF_ERROR(AcquireLockFile(env, path, me));
  return std::unique_ptr<ScopedLock>(new ScopedLock(env, path, std::move(me)));
}

ScopedLock::~ScopedLock() {
  Status ignored = Release();
  (void)ignored;  // a destructor cannot report; callers that care call Release()
}

Status ScopedLock::Release() {
  if (!held_) return Status::OK();
  held_ = false;
  return ReleaseLockFile(env_, path_, me_);
}

}  // namespace nutchfs
