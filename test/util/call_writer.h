// Call files for tests: a Session (test/util/session.h) written as the JSON Lines call
// file that `webdb apply` and `distwriter run` read (spec/interfaces.md section 1), one
// line per call through webdb::AppendCallJson. Call files cannot carry bytes that are not
// valid UTF-8 (webdb/calls/json_out.h), so sessions written here should come from a generator
// with hostile_bytes off.
//
// Free functions; thread-safe on distinct paths.
#ifndef TEST_UTIL_CALL_WRITER_H_
#define TEST_UTIL_CALL_WRITER_H_

#include <string>

#include "test/util/session.h"

namespace testutil {

// The call file text of session: one JSON object and a newline per call.
std::string CallFileText(const Session& session);

// Writes CallFileText(session) to path (replacing it); fails the running Catch2 test if
// the file cannot be written.
void WriteCallFile(const std::string& path, const Session& session);

}  // namespace testutil

#endif  // TEST_UTIL_CALL_WRITER_H_
