// The cross-table invariants of shared/spec/webdb-semantics.md, section 2, checked by
// streaming merges over one version of a db (single-machine or distributed):
//   1. pagesByURL and pagesByMD5 hold the same records; so do linksByMD5 and linksByURL
//      (one external sort each: the MD5 table re-keyed into the URL table's order);
//   2. every link's `from` is the md5 of a page (linksByMD5 merged with pagesByMD5);
//   3. every link's url is a page, and 4. its targetHasOutlink equals
//      (numOutlinks > 0) of that page (linksByURL merged with pagesByURL);
//   5. the counts equal the tables' row counts.
// Memory is the sorter's budget whatever the db size. Not thread-safe.
#ifndef WEBDB_INSPECT_CROSS_CHECK_H_
#define WEBDB_INSPECT_CROSS_CHECK_H_

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "webdb/db/reader.h"
#include "webdb/inspect/finding.h"

namespace webdb {

struct CrossCheckOptions {
  size_t memory_budget = size_t{64} << 20;
  nutchfs::Env* tmp_env = nullptr;  // where the sorts spill
  std::string tmp_dir;
  // How findings name each table ("<dir>/pagesByURL-000003.tbl", ...).
  std::array<std::string, kNumTables> labels;
  // When set, names the file holding a row of table t by its key (a distributed db's
  // section file); findings about a row use it in place of its table's label.
  std::function<std::string(TableId t, std::string_view key)> file_of;
  // Tables found damaged: the checks that need them are skipped.
  std::array<bool, kNumTables> intact{true, true, true, true};
};

// Reports every broken invariant into log. An error only when the sorts fail (their
// temporary files); a damaged table read is a finding.
Status CheckCrossTables(const Reader& reader, const CrossCheckOptions& options, FindingLog& log);

}  // namespace webdb

#endif  // WEBDB_INSPECT_CROSS_CHECK_H_
