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

struct WriterOptions {
  // Memory the external sorts may use, in bytes.
  size_t memory_budget = size_t{256} << 20;
  // Called now and then during Close(); may be empty.
  ProgressFn progress;
  // Test hook: called with a stage name ("stage 1", ..., "publish") before that step.
  // Lets tests kill or fail a writer at each boundary.
  std::function<void(std::string_view)> before_step;
  // Sort the edits held in memory in chunks on a thread of their own while more edits
  // come in (webdb/sorter.h). The result is the same either way.
  bool sort_thread = true;
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

class Writer : public CallSink {
 public:
  // Opens the db at dir for one session. NotFound if there is no db there.
  static Result<std::unique_ptr<Writer>> Open(nutchfs::Env& env, const std::string& dir,
                                              WriterOptions options);
  // Creates an empty db at dir; InvalidArgument if one already exists.
  static Status Create(nutchfs::Env& env, const std::string& dir);

  // Applies the session and publishes the new version. The writer is finished after
  // this, whatever it returns.
  virtual Status Close() = 0;
};

}  // namespace webdb

#endif  // WEBDB_WRITER_H_
