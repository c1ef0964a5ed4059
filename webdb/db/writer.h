// The single-machine WebDB writer: one session of calls, applied on Close().
//
// Calls only log edits into the db's work area; Close() sorts them and runs the five
// merge stages (see docs/DESIGN.md), then publishes the new version atomically. Until
// Close() returns OK readers see the previous version; if the process dies at any
// point the db still opens with its previous content and the session can be redone.
// A Writer holds the db's writer lock from Open() until Close() or destruction; a
// second Open() on the same db fails with Busy. Not thread-safe: one thread calls it.
#ifndef WEBDB_DB_WRITER_H_
#define WEBDB_DB_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "webdb/calls/call_sink.h"
#include "webdb/db/options.h"

namespace webdb {

class Writer : public CallSink {
 public:
  // Opens the db at dir for one session. NotFound if there is no db there.
  static Result<std::unique_ptr<Writer>> Open(nutchfs::Env& env, const std::string& dir,
                                              WriterOptions options);
  // Creates an empty db at dir that keeps `keep` versions readable (webdb/db/versions.h);
  // InvalidArgument if one already exists. REQUIRES: 1 <= keep <= kMaxKeep.
  static Status Create(nutchfs::Env& env, const std::string& dir, uint32_t keep = 2);

  // The version this session publishes changes the db's keep setting to keep (a
  // session with no calls then publishes a version that shares every table).
  // REQUIRES: 1 <= keep <= kMaxKeep; before Close().
  virtual void set_keep(uint32_t keep) = 0;

  // The session's lanes, for calls logged by several threads at once. The writer's own
  // calls (AddPage, ...) are numbered after every call the lanes logged before them.
  virtual CallLanes& lanes() = 0;

  // Applies the session and publishes the new version. The writer is finished after
  // this, whatever it returns.
  virtual Status Close() = 0;
};

}  // namespace webdb

#endif  // WEBDB_DB_WRITER_H_
