// Verifying one table file end to end against its manifest entry (webdb verify): the
// whole-file CRC32C, the checks made at every open (manifest_table.h: size, footer record
// count and file id), the footer and sparse index (Table::Open), every data
// block's CRC and its agreement with the index, strict key order (hence no duplicate
// keys), the footer's record count, every row's value decoding as its table's record,
// and, for a section of a distributed db, every key inside the section's key range; for a
// run, every row's tag, and the numbers of its inserts and removes.
// Reads the file twice, sequentially (once for the CRC, once row by row); memory is one
// read buffer plus the index. Stateless; safe from several threads on distinct files.
#ifndef WEBDB_INSPECT_TABLE_CHECK_H_
#define WEBDB_INSPECT_TABLE_CHECK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/db/manifest_table.h"
#include "webdb/inspect/finding.h"
#include "webdb/table/layered_table.h"

namespace webdb {

struct TableCheck {
  TableRef ref;  // where the file is, in env, and its manifest entry
  TableId table = TableId::kPagesByUrl;
  // Empty, or false for a key that does not belong in this file (a distributed section).
  std::function<bool(std::string_view key)> in_range;
  // For a run (docs/FORMAT.md, "Run files"): its manifest line. Its rows are then tagged:
  // every tag must be known, and the inserts and removes counted as the line says.
  std::optional<RunFile> run;
};

// Reports every problem found into log. True when the file is sound (no finding).
// The file's rows are counted into *rows (when not null) as they are read.
bool CheckTableFile(nutchfs::Env& env, const TableCheck& check, FindingLog& log,
                    uint64_t* rows = nullptr);

// CheckTableFile for each part file of one table, in order, and every key of a part above
// the keys of the part before it. True when every part is sound.
bool CheckTableParts(nutchfs::Env& env, const std::vector<TableRef>& parts, TableId table,
                     const std::function<bool(std::string_view key)>& in_range, FindingLog& log,
                     uint64_t* rows = nullptr);

// CheckTableFile for table t of manifest m in dir: its base's parts, then each of its runs,
// but not a base or run whose (first) file is in *read already (named by a version checked
// before: versions share files); the ones read are added to *read. Counts the files read
// into *files. True when every file read is sound.
bool CheckTableLayers(nutchfs::Env& env, const std::string& dir, const Manifest& m, TableId t,
                      const std::string& manifest,
                      const std::function<bool(std::string_view key)>& in_range, FindingLog& log,
                      uint64_t* rows, uint64_t* files, std::set<std::string>* read);

// Table t of manifest m in dir, its files opened but not checked against their entries
// (the checks above report that), for the checks that read the table whole; null when a
// file does not open.
std::unique_ptr<LayeredTable> OpenTableForChecks(nutchfs::Env& env, const std::string& dir,
                                                 const Manifest& m, TableId t);

}  // namespace webdb

#endif  // WEBDB_INSPECT_TABLE_CHECK_H_
