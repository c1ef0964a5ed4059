// The single-machine WebDB writer: one session of calls, applied on Close().
//
// Calls only log edits into the db's work area; Close() sorts them and runs the five
// merge stages (see docs/DESIGN.md), then publishes the new version atomically. Until
// Close() returns OK readers see the previous version; if the process dies at any
// point the db still opens with its previous content and the session can be redone.
// A Writer holds the db's writer lock from Open() until Close() or destruction; a
// second Open() on the same db fails with Busy. Not thread-safe: one thread calls it.
#ifndef WEBDB_WRITER_H_
#define WEBDB_WRITER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "webdb/record.h"

namespace webdb {

// Progress of a long step, for a human on stderr: `done` of `total` units (total 0 when
// unknown) of the named step ("sort pagesByURL edits", "stage 1 pagesByURL", ...).
struct Progress {
  std::string_view step;
  uint64_t done = 0;
  uint64_t total = 0;
};
using ProgressFn = std::function<void(const Progress&)>;

// Where a session is, for its driver and for tests. Either member may be empty.
struct StageHooks {
  // Called as merge stage `stage` (1..5, webdb/update.h) begins, before its edits are
  // gathered: the distributed writer times its stages by it.
  std::function<void(int stage)> on_stage;
  // Test kill points: called with the name of each step before it begins, "stage 1
  // pagesByURL" ... "stage 5 linksByMD5 fixes" (StageName), then "publish" for the
  // single-machine writer; the distributed writer adds its own (docs/DISTRIBUTED.md).
  // tools/kill_hook.h kills the process at a named one.
  std::function<void(std::string_view step)> before_step;
};

struct WriterOptions {
  // Memory the external sorts may use, in bytes.
  size_t memory_budget = size_t{256} << 20;
  // Called now and then during Close(); may be empty.
  ProgressFn progress;
  StageHooks hooks;
  // Sort the edits held in memory in chunks on threads of their own while more edits
  // come in (webdb/sorter.h), and merge the key ranges of a stage at once
  // (webdb/update.h). The result is the same either way.
  bool threads = true;
  // A stage is merged in key ranges once its old rows and edits reach twice this many
  // (webdb/update.h); the ranges are parts of its new table. Tests lower it to split
  // small tables.
  uint64_t partition_rows = uint64_t{1} << 15;
};

// The six calls of a writer session. Implemented by Writer (single machine) and by
// CallLog, through which every writer, single or distributed, logs its calls.
class CallSink {
 public:
  virtual ~CallSink() = default;
  virtual Status AddPage(const Page& page) = 0;
  virtual Status AddPageWithScore(const Page& page) = 0;
  virtual Status AddPageIfNotPresent(const Page& page) = 0;
  virtual Status AddPageIfNotPresent(const Page& page, const Link& link) = 0;
  virtual Status DeletePage(std::string_view url) = 0;
  virtual Status AddLink(const Link& link) = 0;
};

// A session's calls logged by several threads at once, each through a lane of its own
// (CallFileReader::LogCalls, webdb/call_file.h). Calls are numbered in the order one
// thread would have made them, and ties between calls are decided by those numbers only,
// so the session's result does not depend on which lane logged a call, or when.
class CallLanes {
 public:
  virtual ~CallLanes() = default;
  // The number of lanes (at least 1).
  virtual size_t count() const = 0;
  // Lane i, its next call numbered n (the session's first call is 0). A lane is used by
  // one thread at a time; numbers already given must not be given again.
  virtual CallSink& Lane(size_t i, uint64_t n) = 0;
  // The number the session's next call takes: one past the highest given so far. Not
  // while a lane is in use.
  virtual uint64_t next_call() const = 0;
};

class Writer : public CallSink {
 public:
  // Opens the db at dir for one session. NotFound if there is no db there.
  static Result<std::unique_ptr<Writer>> Open(nutchfs::Env& env, const std::string& dir,
                                              WriterOptions options);
  // Creates an empty db at dir that keeps `keep` versions readable (webdb/versions.h);
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

#endif  // WEBDB_WRITER_H_
