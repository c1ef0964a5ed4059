// JsonCallSink: a webdb::CallSink that writes each call as one line of a call file
// (webdb/calls/call_file.h), so a benchmark workload can be fed to `webdb apply` and
// `distwriter launch`: to a stream, through a buffer it owns that Finish() flushes, or
// appended to a string of the caller's. Not thread-safe.
#ifndef BENCH_JSON_CALL_SINK_H_
#define BENCH_JSON_CALL_SINK_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "webdb/calls/call_file.h"
#include "webdb/calls/call_sink.h"

namespace bench {

using nutchfs::Result;
using nutchfs::Status;

class JsonCallSink final : public webdb::CallSink {
 public:
  // name: the stream's name in error messages.
  JsonCallSink(std::FILE* out, std::string name) : out_(out), name_(std::move(name)) {}
  explicit JsonCallSink(std::string* text) : text_(*text) {}
  JsonCallSink(const JsonCallSink&) = delete;
  JsonCallSink& operator=(const JsonCallSink&) = delete;

  Status AddPage(const webdb::Page& page) override;
  Status AddPageWithScore(const webdb::Page& page) override;
  Status AddPageIfNotPresent(const webdb::Page& page) override;
  Status AddPageIfNotPresent(const webdb::Page& page, const webdb::Link& link) override;
  Status DeletePage(std::string_view url) override;
  Status AddLink(const webdb::Link& link) override;

  // Writes out what is buffered and flushes the stream.
  Status Finish();
  uint64_t bytes_written() const { return bytes_; }

 private:
  Status Emit(const webdb::Call& call);
  Status EmitPage(webdb::Call::Op op, const webdb::Page& page, const webdb::Link* link);
  Status Drain();

  std::FILE* out_ = nullptr;  // none: the lines stay in text_
  std::string name_;
  std::string buf_;
  std::string& text_ = buf_;
  uint64_t bytes_ = 0;
};

}  // namespace bench

#endif  // BENCH_JSON_CALL_SINK_H_
