// A table file as a manifest entry (webdb::TableFile) names it: opening it, and checking
// that the file at the path is the one the entry means — it exists, has the entry's
// size, and its footer holds the entry's record count and file id (docs/FORMAT.md).
// These checks read the footer only, so they are made whenever a table is opened (by
// readers, single or distributed, by the merge stages) and before a new version is
// published. A table that a new version carries over from an older one without any
// stage reading it whole (or that a rollback names again) is also read once end to end
// for its whole-file CRC32C before the version is published (CheckTableBytes); `webdb
// verify` adds that CRC and reads every block (table_check.h).
//
// Every error names the file and the manifest: NotFound when the file is missing (a
// reader then retries from CURRENT, see Reader::OpenRetrying), Corruption when the file
// is not the one the entry names. Stateless functions; thread-safe as the Env is.
#ifndef WEBDB_DB_MANIFEST_TABLE_H_
#define WEBDB_DB_MANIFEST_TABLE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/db/manifest.h"
#include "webdb/table/layered_table.h"
#include "webdb/table/table.h"

namespace webdb {

// Where a table file is and what its manifest says of it; `manifest` names the manifest
// in messages ("MANIFEST-000007", "ROUND-000003 section 2").
struct TableRef {
  std::string path;
  TableFile entry;
  std::string manifest;
};

// The refs of table t's parts as manifest m of dir names them; `manifest` names m in
// messages.
std::vector<TableRef> TableRefsOf(const std::string& dir, const Manifest& m, TableId t,
                                  const std::string& manifest);

// The refs of table t's runs as manifest m of dir names them, oldest first.
std::vector<TableRef> RunRefsOf(const std::string& dir, const Manifest& m, TableId t,
                                const std::string& manifest);

// Opens the table's part files, in order, and checks each against its entry.
// REQUIRES: !parts.empty().
Result<std::unique_ptr<Table>> OpenTableOf(nutchfs::Env& env, const std::vector<TableRef>& parts);

// Opens table t of manifest m in dir, its base and its runs (docs/DESIGN.md, "Layered
// tables"), each file checked against its entry as OpenTableOf checks it.
Result<std::unique_ptr<LayeredTable>> OpenLayeredTableOf(nutchfs::Env& env, const std::string& dir,
                                                         const Manifest& m, TableId t,
                                                         const std::string& manifest);

// The same checks, reading only the file's size and its footer; the footer.
Result<Footer> CheckedFooterOf(nutchfs::Env& env, const TableRef& ref);
Status CheckTableOf(nutchfs::Env& env, const TableRef& ref);

// CheckTableOf for every table file (part or run) m names in dir: before a version is
// published, so that no version names a file that is missing, cut short or another table.
// The first mismatch is returned.
Status CheckManifestTables(nutchfs::Env& env, const std::string& dir, const Manifest& m);

// The size and CRC32C (unmasked) of every byte of the file at path, read once front to
// back in pieces of 1 MiB.
struct FileSum {
  uint64_t size = 0;
  uint32_t crc = 0;
};
Result<FileSum> SumFile(nutchfs::Env& env, const std::string& path);

// Reads the whole file and checks its size and CRC32C against the entry: every byte of
// it, data blocks, index and footer (docs/FORMAT.md, "Whole-file checksum"). NotFound
// when it is missing, Corruption naming the file when it differs.
Status CheckTableBytes(nutchfs::Env& env, const TableRef& ref);

// CheckTableBytes for every part file of the tables that `next` names as `from` does, and
// every run of `from` that `next` names too (what it carries over from `from`), in dir;
// `label` names `from` in messages. With dropped (the manifests of the versions that
// publishing `next` stops keeping), only the carried files that one of them does not name:
// a file every dropped version names too is no worse in `next` than in them, so dropping
// them loses no sound copy of it (docs/DESIGN.md, "Versions and crash safety").
// The first mismatch is returned.
Status CheckCarriedTables(nutchfs::Env& env, const std::string& dir, const Manifest& from,
                          const Manifest& next, const std::string& label,
                          const std::vector<Manifest>* dropped = nullptr);

// The parts of the checks, for callers that report each mismatch (webdb verify):
// Corruption "<path>: size N bytes, <manifest> says M".
Status CheckTableSize(const TableRef& ref, uint64_t size);
// Corruption when the footer's record count or file id differs from the entry's.
Status CheckTableFooter(const TableRef& ref, const Footer& footer);
// Corruption "<path>: file CRC32C X, <manifest> says Y" when crc is not the entry's.
Status CheckTableCrc(const TableRef& ref, uint32_t crc);

}  // namespace webdb

#endif  // WEBDB_DB_MANIFEST_TABLE_H_
