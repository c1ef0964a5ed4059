// DbSession: a single-machine db held under its writer lock by one session that publishes
// at most one version — a writer's session of calls (writer.h), a rank
// (webdb/rank/rank_db.h). Open takes LOCK (a second session is refused with Busy naming
// the holder), makes it durable before any file of the session, reads the current version
// and removes what an interrupted session left behind: the work area and the files no
// kept or pinned version names. End gives it all back.
//
// Owns the lock; the Env must outlive it. Not thread-safe: one thread drives a session.
#ifndef WEBDB_DB_DB_SESSION_H_
#define WEBDB_DB_DB_SESSION_H_

#include <memory>
#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "nutchfs/scoped_lock.h"
#include "webdb/db/manifest.h"
#include "webdb/db/versions.h"

namespace webdb {

class DbSession {
 public:
  // NotFound if there is no db at dir; Busy while another session holds its LOCK.
  // `holder` names this session in LOCK ("webdb writer").
  static Result<std::unique_ptr<DbSession>> Open(nutchfs::Env& env, const std::string& dir,
                                                 std::string holder);
  // A session never ended leaves its work area to the next Open, and releases LOCK.
  ~DbSession();
  DbSession(const DbSession&) = delete;
  DbSession& operator=(const DbSession&) = delete;

  nutchfs::Env& env() const { return env_; }
  const std::string& dir() const { return dir_; }
  // dir/work, empty when the session begins.
  std::string work_dir() const { return dir_ + "/work"; }
  // The version the session starts from: no other session can replace it meanwhile.
  const Manifest& current() const { return current_; }

  // Makes next the current version (PublishVersion, with its steps told to hook), the
  // removals of the files it no longer keeps durable while LOCK still is.
  Status Publish(const Manifest& next, const StepHook& hook);

  // Ends the session with its outcome s: after a failure, removes the files no kept or
  // pinned version names (the session's unfinished tables, a manifest never made
  // current), so that the db is left as it was; then removes the work area, releases
  // LOCK and syncs the directory (a power loss then finds no LOCK). Returns s, else the
  // first failure of these. Once.
  Status End(Status s);

 private:
  DbSession(nutchfs::Env& env, std::string dir, std::unique_ptr<nutchfs::ScopedLock> lock,
            Manifest current)
      : env_(env), dir_(std::move(dir)), lock_(std::move(lock)), current_(std::move(current)) {}

  nutchfs::Env& env_;
  const std::string dir_;
  std::unique_ptr<nutchfs::ScopedLock> lock_;
  const Manifest current_;
  bool ended_ = false;
};

}  // namespace webdb

#endif  // WEBDB_DB_DB_SESSION_H_
