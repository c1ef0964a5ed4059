// CallSink and CallLanes: where writer calls go. Implemented by the single-machine
// Writer, by CallLog (through which every writer logs its calls) and by the tools that
// turn calls into JSON lines. Thread-safety: see each class.
#ifndef WEBDB_CALLS_CALL_SINK_H_
#define WEBDB_CALLS_CALL_SINK_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "webdb/table/record.h"

namespace webdb {

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
// (CallFileReader::LogCalls, webdb/calls/call_file.h). Calls are numbered in the order one
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

}  // namespace webdb

#endif  // WEBDB_CALLS_CALL_SINK_H_
