// JSON output of pages, links and db statistics (the dump format of
// spec/interfaces.md section 2) and of writer calls (the call file format), one object
// per call, without a trailing newline.
//
// Field order is fixed: pages {"url","md5","nextFetch","retries","fetchInterval",
// "numOutlinks","score","nextScore"}, links {"from","url","domainID","anchor",
// "targetHasOutlink"}. md5s are 32 lowercase hex digits. Floats are printed in the
// shortest form that parses back to the same float32 (non-finite values, which JSON
// cannot express and call files cannot produce, print as null). Strings are valid
// JSON: '"' and '\' are backslash-escaped, bytes below 0x20 become \u00XX, valid UTF-8
// passes through unchanged, and every byte that is not part of a valid UTF-8 sequence
// becomes \u00XX of that byte. That last rule is lossy by design: "\u00e9" in a dump may
// stand for the byte 0xE9 or for the character U+00E9 (stored as C3 A9).
//
// Plain functions appending to a caller-owned string; thread-safe.
#ifndef WEBDB_CALLS_JSON_OUT_H_
#define WEBDB_CALLS_JSON_OUT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "webdb/calls/call_file.h"
#include "webdb/table/record.h"

namespace webdb {

struct DbStats {
  uint64_t pages = 0;
  uint64_t links = 0;
};

void AppendPageJson(const Page& page, std::string* out);
void AppendLinkJson(const Link& link, std::string* out);
// {"pages":N,"links":M}
void AppendStatsJson(const DbStats& stats, std::string* out);
// One line of a call file (webdb/calls/call_file.h) for call, all fields explicit. Like the
// dumps, it cannot carry bytes that are not valid UTF-8 (see above).
void AppendCallJson(const Call& call, std::string* out);

// The pieces, for other JSON writers: a quoted string escaped as above, and a float.
void AppendJsonString(std::string_view bytes, std::string* out);
void AppendJsonFloat(float value, std::string* out);

}  // namespace webdb

#endif  // WEBDB_CALLS_JSON_OUT_H_
