// JsonCallWriter: a CallSink that writes each call as one line of a call file (docs/CLI.md,
// "Call files"; webdb/calls/call_file.h reads them back), for every producer of call
// files: `webdb calls` (converter output on standard output), the crawl commands' lease
// and distributed sessions, and the benchmarks' workloads.
//
// Lines are buffered (up to 1 MiB) and handed to a Drain, which writes them where the
// caller says: an Env file, a stdio stream, or a string of the caller's. The writer does
// not own what its drain writes to. Not thread-safe.
#ifndef WEBDB_CALLS_JSON_CALL_WRITER_H_
#define WEBDB_CALLS_JSON_CALL_WRITER_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "webdb/calls/call_file.h"
#include "webdb/calls/call_sink.h"

namespace webdb {

class JsonCallWriter final : public CallSink {
 public:
  // Writes a chunk of whole lines.
  using Drain = std::function<Status(std::string_view lines)>;
  static Drain ToFile(nutchfs::WritableFile& file);
  // name: the stream's name in error messages ("standard output").
  static Drain ToStream(std::FILE* out, std::string name);
  static Drain ToString(std::string* text);

  explicit JsonCallWriter(Drain drain) : drain_(std::move(drain)) {}
  JsonCallWriter(const JsonCallWriter&) = delete;
  JsonCallWriter& operator=(const JsonCallWriter&) = delete;

  Status AddPage(const Page& page) override;
  Status AddPageWithScore(const Page& page) override;
  Status AddPageIfNotPresent(const Page& page) override;
  Status AddPageIfNotPresent(const Page& page, const Link& link) override;
  Status DeletePage(std::string_view url) override;
  Status AddLink(const Link& link) override;

  // Hands what is buffered to the drain. Call once the last call is written.
  Status Flush();
  // Ends the output with a line no call-file reader accepts, {"op":"error",...}, so that
  // a pipeline into `webdb apply` or `distwriter launch` applies nothing; flushes.
  Status Poison(std::string_view message);

  uint64_t calls() const { return calls_; }
  // Bytes handed to the drain so far.
  uint64_t bytes_written() const { return bytes_; }

 private:
  Status Write(const Call& call);

  Drain drain_;
  std::string buf_;
  uint64_t calls_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace webdb

#endif  // WEBDB_CALLS_JSON_CALL_WRITER_H_
