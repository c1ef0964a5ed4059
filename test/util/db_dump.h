// DbDump: the whole content of a WebDB (four tables decoded, plus the two counts), taken
// from a real db through a Reader or from the model, and compared record by record.
//
// Plain values; DumpDb reads through the given Reader and keeps nothing of it.
#ifndef TEST_UTIL_DB_DUMP_H_
#define TEST_UTIL_DB_DUMP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "webdb/db/reader.h"
#include "webdb/table/record.h"

namespace testutil {

struct DbDump {
  std::vector<webdb::Page> pages_by_url;  // url order
  std::vector<webdb::Page> pages_by_md5;  // (md5, url) order
  std::vector<webdb::Link> links_by_md5;  // (from, url) order
  std::vector<webdb::Link> links_by_url;  // (url, from) order
  uint64_t num_pages = 0;
  uint64_t num_links = 0;
};

// Decodes all four tables through the reader's cursors (pages(), pagesByMD5(), links(),
// the linksByMD5 cursor) and takes NumPages/NumLinks.
webdb::Result<DbDump> DumpDb(const webdb::Reader& reader);

// Empty when equal; otherwise the first difference: which table (or count), the index,
// and both records printed (or "<end>" where one table is shorter).
std::string CompareDumps(const DbDump& expected, const DbDump& actual);

// Checks the invariants of the semantics spec, section 2, on one dump, plus strict key
// order within each table. Empty when all hold, else the first violation.
std::string CheckInvariants(const DbDump& dump);

}  // namespace testutil

#endif  // TEST_UTIL_DB_DUMP_H_
