// The fast path of CallParser (webdb/calls/call_parser.h): a call line in plain form, read
// with a few byte comparisons per field instead of a general JSON parser.
//
// Plain form is the grammar of webdb/calls/call_file.h (fields in any order, white space
// between tokens) where, in addition, no string has an escape or a byte below 0x20, an
// integer is 0 or -?[1-9][0-9]{0,18} (within int64), and a float is at most 64 bytes of
// JSON number. Every call file our tools and the bench generator write is in plain form.
//
// ScanPlainCall gives exactly the Call that CallParser::ParseJson gives for a plain line
// without errors, and false for every other line — one with escapes, an error, or
// anything unusual — which CallParser then parses in full, so that a line's result and
// error never depend on which path read it. Stateless; thread-safe.
#ifndef WEBDB_CALLS_PLAIN_CALL_SCANNER_H_
#define WEBDB_CALLS_PLAIN_CALL_SCANNER_H_

#include <string_view>

#include "webdb/calls/call_file.h"

namespace webdb {

// Fills *call with the line's call, reusing the storage of its strings (a reader that
// keeps one Call for every line allocates nothing per line); false, leaving *call
// unspecified, when the line is not in plain form.
bool ScanPlainCall(std::string_view line, Call* call);

}  // namespace webdb

#endif  // WEBDB_CALLS_PLAIN_CALL_SCANNER_H_
