// Call files: JSON Lines of writer calls (spec/interfaces.md section 1, docs/CLI.md).
//
// One JSON object per line: {"op":..., "page":{...}} / {"op":..., "link":{...}} /
// {"op":"deletePage","url":...}. Blank lines are skipped. Parsing is strict, so typos
// do not silently become defaults: unknown or duplicated fields (at the top level and
// inside "page" and "link") are rejected, as are nulls, integers written as decimals,
// numbers out of their field's range, md5s that are not 32 lowercase hex digits, urls
// breaking ValidateUrl, anchors over 65535 bytes and trailing text after the object.
// A "targetHasOutlink" given in a link must be a bool and is ignored (the db computes it).
// Every parse error is InvalidArgument "FILE:LINE: reason" (FILE is "-" for standard
// input); read errors are the Env's.
//
// A CallFileReader owns its file and buffers; it is not thread-safe (one thread calls
// it). With parse_thread (the default) it owns two threads that read the file ahead in
// chunks of whole lines and parse two chunks at a time, while the caller applies the
// calls already parsed; the calls, their line numbers and positions and the errors are
// exactly those of the single-threaded reader, but that a read error may come after
// fewer calls (the threads read less at a time). LogCalls has the two threads log the
// calls they parse as well, each through a lane of the writer's. A Call is a plain value.
#ifndef WEBDB_CALLS_CALL_FILE_H_
#define WEBDB_CALLS_CALL_FILE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "nutchfs/env.h"
#include "webdb/calls/call_sink.h"
#include "webdb/table/record.h"

namespace webdb {

struct Call {
  enum class Op { kAddPage, kAddPageWithScore, kAddPageIfNotPresent, kDeletePage, kAddLink };

  Op op = Op::kAddPage;
  Page page;                 // the page of the three add-page ops
  std::optional<Link> link;  // addLink's link; addPageIfNotPresent's optional link
  std::string url;           // deletePage's url

  bool operator==(const Call&) const = default;
};

// "addPage", "addPageWithScore", ... as spelled in call files.
const char* CallOpName(Call::Op op);

// Streams the calls of one call file, front to back, in bounded memory (the longest
// line plus a few MiB).
class CallFileReader {
 public:
  // Opens path; "-" reads standard input. IOError/NotFound if it cannot be opened.
  static Result<std::unique_ptr<CallFileReader>> Open(nutchfs::Env& env, const std::string& path,
                                                      bool parse_thread = true);

  ~CallFileReader();
  CallFileReader(const CallFileReader&) = delete;
  CallFileReader& operator=(const CallFileReader&) = delete;

  // The next call, or nullptr at the end of the file; the call stays valid until the
  // next Next(). After an error the reader is finished: every later Next() returns the
  // same error.
  Result<const Call*> Next();

  // The name used in error messages: the path, or "-" for standard input.
  const std::string& name() const;
  // The number of the line most recently read (1-based; 0 before the first).
  uint64_t line() const;
  // Error s, met while applying the call just read, with its place: "FILE:LINE: ..."
  // when the call was bad input (InvalidArgument), "logging the calls of FILE (at line
  // N): ..." otherwise (a full disk is not the input's fault).
  Status Placed(const Status& s) const;
  // Bytes consumed so far, for progress reports.
  uint64_t bytes_consumed() const;

  // Logs every call of the file into lanes, numbered from lanes.next_call() in the
  // file's order, with the errors Next() and Placed() would give: the first in the file
  // (a later call may have been logged by then; the session is then to be dropped). With
  // the parse threads and more than one lane, each thread logs the chunks it parses
  // through a lane of its own (no call crosses from one core to another); otherwise
  // every call goes through lane 0. progress(calls, bytes), if not empty, is called on
  // this thread now and then. Returns the number of calls logged. REQUIRES: no Next()
  // before; nothing after but line(), bytes_consumed() and name().
  using LogProgressFn = std::function<void(uint64_t calls, uint64_t bytes)>;
  Result<uint64_t> LogCalls(CallLanes& lanes, const LogProgressFn& progress);
  // Applies every call of the file to sink on this thread, in order (the parse threads,
  // if any, reading ahead), with the errors Next() and Placed() give; progress as above.
  // REQUIRES: as for LogCalls.
  Status ApplyAll(CallSink& sink, const LogProgressFn& progress = {});

 private:
  struct Rep;
  class Ahead;
  explicit CallFileReader(std::unique_ptr<Rep> rep);

  std::unique_ptr<Rep> rep_;
  bool parse_thread_ = false;
  std::unique_ptr<Ahead> ahead_;  // the parse threads, once started
};

// Logs call into writer. Errors are the writer's, unchanged.
Status ApplyCall(CallSink& writer, const Call& call);

}  // namespace webdb

#endif  // WEBDB_CALLS_CALL_FILE_H_
