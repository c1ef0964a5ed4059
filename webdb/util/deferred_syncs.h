// DeferredSyncs: written files synced and closed on threads of their own while their
// writer goes on. An update hands it each table file it finishes (complete and flushed
// to the Env, so the next stage can read it), so that the file's sync — its last bytes
// written back, the disk's flush, a journal commit: milliseconds with both CPUs idle —
// overlaps the next stage's merge instead of ending the stage. Wait() returns once every
// file handed over is synced and closed: the update calls it before it returns the new
// manifest, so a version never names a table that is not durable.
//
// Thread-safe: a stage's workers hand over their files at once. The destructor waits for
// the files still syncing (an update that failed: their errors are dropped, its own is
// the one to report).
#ifndef WEBDB_UTIL_DEFERRED_SYNCS_H_
#define WEBDB_UTIL_DEFERRED_SYNCS_H_

#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "nutchfs/status.h"

namespace webdb {

using nutchfs::Status;

class DeferredSyncs {
 public:
  DeferredSyncs() = default;
  ~DeferredSyncs();
  DeferredSyncs(const DeferredSyncs&) = delete;
  DeferredSyncs& operator=(const DeferredSyncs&) = delete;

  // Syncs and closes file on a thread of its own; a failure is reported by Wait() with
  // `context` (the stage that wrote the file) before it.
  void Add(std::unique_ptr<nutchfs::WritableFile> file, std::string context);

  // Waits for every file added so far: the first failure, in the order they were added.
  Status Wait();

 private:
  std::mutex mu_;
  std::vector<std::future<Status>> pending_;
};

}  // namespace webdb

#endif  // WEBDB_UTIL_DEFERRED_SYNCS_H_
