#include "nutchfs/lock_file.h"

#include <spdlog/spdlog.h>

#include "nutchfs/clock.h"
#include "nutchfs/publish.h"

namespace nutchfs {
namespace {

// Removes the lock at path if its contents are still `expected`. NotFound if the lock is
// gone; Busy (after putting it back) if it changed.
Status RemoveIfUnchanged(Env& env, const std::string& path, const std::string& expected) {
  const std::string aside = TempPathFor(path);
  Status moved = env.RenameFile(path, aside);
  if (moved.IsNotFound() || (!moved.ok() && !env.FileExists(path))) {
    return Status::NotFound("lock " + path + " is gone");
  }
  NUTCHFS_RETURN_IF_ERROR(moved);
  NUTCHFS_ASSIGN_OR_RETURN(std::string found, ReadFileToString(env, aside));
  if (found != expected) {
    Status back = env.CreateExclusive(path, found);
    if (!back.ok()) {
      return Status::IOError("lock " + path + " changed while being removed and could not be " +
                             "restored (" + back.ToString() + "); its copy is " + aside);
    }
    Status ignored = env.RemoveFile(aside);
    (void)ignored;  // the copy is invisible to listings
    return Status::Busy("lock " + path + " changed hands while being removed");
  }
  return env.RemoveFile(aside);
}

}  // namespace

Result<LockOwner> ReadLockFile(Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, path));
  return DecodeLockOwner(text, path);
}

Status AcquireLockFile(Env& env, const std::string& path, const LockOwner& me) {
  NUTCHFS_RETURN_IF_ERROR(env.CreateDirs(DirOf(path)));
  const std::string contents = EncodeLockOwner(me);
  Status s;
  for (int attempt = 0; attempt < 3; ++attempt) {
    s = env.CreateExclusive(path, contents);
    // NotFound: the temporary file made to be linked as the lock was removed first, by
    // the clean-up of a writer that took the lock meanwhile: the next try names it.
    if (s.IsNotFound()) continue;
    if (!s.IsBusy()) return s;
    auto text = ReadFileToString(env, path);
    if (!text && text.error().IsNotFound()) continue;  // released meanwhile
    if (!text) return text.error();
    LockVerdict verdict = JudgeLock(DecodeLockOwner(*text, path), me, NowMs(), 0, false);
    if (!verdict.breakable) return Status::Busy("lock " + path + " is " + verdict.reason);
    spdlog::warn("breaking the stale lock {}: {}", path, verdict.reason);
    Status removed = RemoveIfUnchanged(env, path, *text);
    if (!removed.ok() && !removed.IsNotFound() && !removed.IsBusy()) return removed;
  }
  if (s.IsNotFound()) return s;
  return Status::Busy("lock " + path + " is contended; gave up after 3 attempts");
}

Status ReleaseLockFile(Env& env, const std::string& path, const LockOwner& me) {
  auto text = ReadFileToString(env, path);
  if (!text) return text.error().IsNotFound() ? Status::NotFound("no lock " + path) : text.error();
  auto owner = DecodeLockOwner(*text, path);
  if (!owner || owner->token != me.token) {
    return Status::Busy("lock " + path + " is not held by this process any more");
  }
  return RemoveIfUnchanged(env, path, *text);
}

bool BreakableByForce(Env& env, const std::string& path) {
  auto text = ReadFileToString(env, path);
  if (!text) return !text.error().IsNotFound();
  return JudgeLock(DecodeLockOwner(*text, path), CurrentProcess(""), NowMs(), 0, true).breakable;
}

Result<std::string> BreakLockFile(Env& env, const std::string& path, const LockOwner& me,
                                  int64_t now_ms, int64_t lease_ms, bool force) {
  auto text = ReadFileToString(env, path);
  if (!text && text.error().IsNotFound()) return Err(Status::NotFound("no lock " + path));
  if (!text) return Err(text.error());
  LockVerdict verdict = JudgeLock(DecodeLockOwner(*text, path), me, now_ms, lease_ms, force);
  if (!verdict.breakable) return Err(Status::Busy("lock " + path + " is " + verdict.reason));
  NUTCHFS_RETURN_IF_ERROR(RemoveIfUnchanged(env, path, *text));
  return verdict.reason;
}

}  // namespace nutchfs
