// CallParser: one line of a call file -> one Call, with the strict grammar described
// in webdb/calls/call_file.h. Used by CallFileReader; exposed for tests and other readers of
// call streams. A line in plain form (webdb/calls/plain_call_scanner.h) is read by the fast
// scanner; every other line, and every line with an error, by simdjson's parser.
//
// A CallParser owns a simdjson parser whose buffers are reused from line to line, so
// one parser should live as long as the stream. Not thread-safe.
#ifndef WEBDB_CALLS_CALL_PARSER_H_
#define WEBDB_CALLS_CALL_PARSER_H_

#include <cstddef>
#include <memory>
#include <string_view>

#include "webdb/calls/call_file.h"

namespace webdb {

class CallParser {
 public:
  // Bytes that must be readable (any content) after the end of every line given to
  // Parse; simdjson reads ahead in blocks.
  static constexpr size_t kPadding = 64;

  CallParser();
  ~CallParser();
  CallParser(const CallParser&) = delete;
  CallParser& operator=(const CallParser&) = delete;

  // Parses one line without its newline into *call, reusing its storage where it can.
  // Errors are InvalidArgument carrying the reason only (the caller adds FILE:LINE);
  // *call is then unspecified.
  // REQUIRES: the kPadding bytes after line.data() + line.size() are readable.
  Status Parse(std::string_view line, Call* call);
  // Parse with simdjson's parser alone, whatever the line's form (what Parse does for a
  // line the fast scanner does not take; for tests that hold the scanner to it).
  Result<Call> ParseJson(std::string_view line);

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace webdb

#endif  // WEBDB_CALLS_CALL_PARSER_H_
