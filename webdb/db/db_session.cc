#include "webdb/db/db_session.h"

namespace webdb {

Result<std::unique_ptr<DbSession>> DbSession::Open(nutchfs::Env& env, const std::string& dir,
                                                   std::string holder) {
  if (!env.FileExists(dir + "/CURRENT")) return Err(Status::NotFound("no webdb at " + dir));
  // The lock first: the version read after it cannot be replaced by another session
  // before this one has published (or given up).
  NUTCHFS_ASSIGN_OR_RETURN(auto lock,
                           nutchfs::ScopedLock::Acquire(env, dir + "/LOCK", std::move(holder)));
  // LOCK durable before any file of the session: whatever of it a power loss keeps, it
  // keeps the LOCK that marks it as unfinished (docs/DESIGN.md).
  NUTCHFS_RETURN_IF_ERROR(env.SyncDir(dir));
  NUTCHFS_ASSIGN_OR_RETURN(Manifest current, ReadCurrentManifest(env, dir));
  // Whatever an interrupted session left behind is not part of any version.
  NUTCHFS_RETURN_IF_ERROR(env.RemoveDirRecursively(dir + "/work"));
  NUTCHFS_RETURN_IF_ERROR(env.CreateDirs(dir + "/work"));
  NUTCHFS_RETURN_IF_ERROR(CollectGarbage(env, dir, current));
  return std::unique_ptr<DbSession>(new DbSession(env, dir, std::move(lock), std::move(current)));
}

DbSession::~DbSession() {
  if (ended_) return;
  Status ignored = env_.RemoveDirRecursively(work_dir());
  (void)ignored;  // the next Open() removes it anyway
}

Status DbSession::Publish(const Manifest& next, const StepHook& hook) {
  NUTCHFS_RETURN_IF_ERROR(PublishVersion(env_, dir_, current_, next, hook));
  // The removals durable while LOCK still is: a power loss never shows old files without
  // the LOCK that marks them as a session's.
  return env_.SyncDir(dir_);
}

Status DbSession::End(Status s) {
  ended_ = true;
  if (!s.ok()) {
    // Best effort: the session's error is the one to report, and the next Open removes
    // what is left. The version now current: the old one, or the new one when the failure
    // came after the switch.
    auto current = ReadCurrentManifest(env_, dir_);
    if (current) {
      Status ignored = CollectGarbage(env_, dir_, *current);
      (void)ignored;
    }
  }
  Status cleaned = env_.RemoveDirRecursively(work_dir());
  Status released = lock_->Release();
  // So that a power loss now finds no LOCK (it would be broken as stale anyway).
  if (released.ok()) released = env_.SyncDir(dir_);
  if (!s.ok()) return s;
  return cleaned.ok() ? released : cleaned;
}

}  // namespace webdb
