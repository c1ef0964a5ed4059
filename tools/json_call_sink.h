// A webdb::CallSink that writes each call as one JSON Lines call (docs/CLI.md, "Call
// files") to a stdio stream: how `webdb calls` streams converter output and how the
// crawl commands hand a distributed db's calls to `distwriter launch`.
//
// Does not own the stream; buffers up to 1 MiB between writes. Not thread-safe.
#ifndef TOOLS_JSON_CALL_SINK_H_
#define TOOLS_JSON_CALL_SINK_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "webdb/calls/call_file.h"
#include "webdb/calls/call_sink.h"

namespace tools {

class JsonCallSink final : public webdb::CallSink {
 public:
  explicit JsonCallSink(std::FILE* out) : out_(out) {}

  webdb::Status AddPage(const webdb::Page& page) override;
  webdb::Status AddPageWithScore(const webdb::Page& page) override;
  webdb::Status AddPageIfNotPresent(const webdb::Page& page) override;
  webdb::Status AddPageIfNotPresent(const webdb::Page& page, const webdb::Link& link) override;
  webdb::Status DeletePage(std::string_view url) override;
  webdb::Status AddLink(const webdb::Link& link) override;

  // Writes what is buffered and flushes the stream.
  webdb::Status Flush();
  // Ends the output with a line no call-file reader accepts, {"op":"error",...}, so that
  // a pipeline into `webdb apply` or `distwriter launch` applies nothing.
  webdb::Status Poison(std::string_view message);

  uint64_t calls() const { return calls_; }

 private:
  webdb::Status Write(const webdb::Call& call);

  std::FILE* out_;
  std::string buf_;
  uint64_t calls_ = 0;
};

}  // namespace tools

#endif  // TOOLS_JSON_CALL_SINK_H_
