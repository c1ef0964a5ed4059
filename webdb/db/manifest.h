// A db version: the manifest naming its four table files, and the directory-level
// operations that read, install and garbage-collect versions.
//
// A db directory holds immutable table files, MANIFEST-<version> files and CURRENT,
// which names the live manifest. A new version is installed by writing its manifest,
// then replacing CURRENT by write-temp + sync + rename + directory sync: readers see
// the old version or the new one, never a mix, and a crash at any moment leaves the
// previous version current. Unchanged tables are shared between versions by name.
// Pure values and free functions; safe to use from several threads on distinct dirs.
#ifndef WEBDB_DB_MANIFEST_H_
#define WEBDB_DB_MANIFEST_H_

#include <array>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/table/record.h"

namespace webdb {

struct TableFile {
  std::string name;  // file name inside the db directory
  uint64_t records = 0;
  uint64_t size = 0;
  uint32_t crc = 0;  // CRC32C of the whole file
  uint64_t id = 0;   // the file id in its footer; 0: not recorded (docs/FORMAT.md)
  bool operator==(const TableFile&) const = default;
};

// A table's base as a manifest names it: its part files in key order, every key of a part
// above those of the part before it (webdb/table/table.h). One part unless the update that
// wrote the table split it (docs/DESIGN.md, "Partitions"); never none.
using TableParts = std::vector<TableFile>;

// A run over a table's base (docs/DESIGN.md, "Layered tables"): its file, and how many of
// its rows are inserts and removes (webdb/table/layered_table.h).
struct RunFile {
  TableFile file;
  uint64_t inserts = 0;
  uint64_t removes = 0;
  bool operator==(const RunFile&) const = default;
};
// A table's runs, oldest first; none for a table that is its base.
using TableRuns = std::vector<RunFile>;

// Versions kept readable when the db does not say (docs/FORMAT.md, "keep"), and the most.
constexpr uint32_t kDefaultKeep = 2;
constexpr uint32_t kMaxKeep = 10000;

// How `webdb rank` computes scores (shared/spec/link-analysis.md, docs/DESIGN.md "Link
// analysis"): at most `iterations` iterations, fewer once one changes the scores by less
// than epsilon x N in all, with this damping.
struct RankOptions {
  uint32_t iterations = 10;
  double epsilon = 1e-4;
  double damping = 0.85;
  bool operator==(const RankOptions&) const = default;
};

// What `webdb rank` did to make a version's scores: its options, the iterations it ran and
// how much the last one changed the scores in all (the L1 norm of r' - r).
struct RankInfo {
  RankOptions options;
  uint32_t done = 0;
  double l1 = 0;
  bool operator==(const RankInfo&) const = default;
};

// The fields of a rank line after its first word, "rank" (docs/FORMAT.md), which the round
// manifest of a distributed db writes too; ParseRankFields reads them from the stream and
// checks them (false when malformed or out of range).
std::string RankFields(const RankInfo& rank);
bool ParseRankFields(std::istream& fields, RankInfo* rank);

struct Manifest {
  uint64_t version = 0;
  int64_t time_ms = 0;          // when it was published, ms since the epoch; 0: unknown
  uint32_t keep = kDefaultKeep;  // the db setting: versions kept readable, this one included
  uint64_t restores = 0;        // a rollback: the version whose tables this one names
  // How its scores were computed, when a rank made them (this version, or the one whose
  // tables a keep or rollback version shares).
  std::optional<RankInfo> rank;
  std::array<TableParts, kNumTables> tables;  // each table's base
  std::array<TableRuns, kNumTables> runs;     // and its runs

  // Table t's base and runs.
  const TableParts& table(TableId t) const { return tables[static_cast<int>(t)]; }
  const TableRuns& runs_of(TableId t) const { return runs[static_cast<int>(t)]; }
  // The entries of table t's base, to change in place; a new base is SetBase's.
  TableParts& base_entries(TableId t) { return tables[static_cast<int>(t)]; }
  // Table t becomes this base alone (its runs are dropped: a new base holds every row),
  // or this base and these runs.
  void SetBase(TableId t, TableParts base) { SetLayers(t, std::move(base), {}); }
  void SetLayers(TableId t, TableParts base, TableRuns table_runs) {
    tables[static_cast<int>(t)] = std::move(base);
    runs[static_cast<int>(t)] = std::move(table_runs);
  }
  // The table's rows: its base's records, and each run's inserts less its removes.
  uint64_t records(TableId t) const;
  uint64_t bytes(TableId t) const;  // of its part and run files
  uint64_t run_records(TableId t) const;  // rows stored in its runs (tombstones included)
  uint64_t num_pages() const { return records(TableId::kPagesByUrl); }
  uint64_t num_links() const { return records(TableId::kLinksByUrl); }
  // Whether one of its tables has a part or run file of this name.
  bool NamesTableFile(std::string_view name) const;
  // Every table file it names: the parts and runs of each table.
  std::vector<const TableFile*> Files() const;
  // Whether both name the same files as the same layers of the same tables.
  bool SameTables(const Manifest& o) const { return tables == o.tables && runs == o.runs; }

  // The text form documented in docs/FORMAT.md, ending in a checksum line.
  std::string Encode() const;
  // path is only used in error messages.
  static Result<Manifest> Decode(std::string_view text, const std::string& path);
  bool operator==(const Manifest&) const = default;
};

std::string ManifestFileName(uint64_t version);
// "<table>-<version>.tbl", with an optional suffix before ".tbl".
std::string TableFileName(TableId t, uint64_t version, std::string_view suffix = "");
// The version in a table file name made by TableFileName (the version whose update wrote
// it); nullopt for other names.
std::optional<uint64_t> TableFileVersion(std::string_view name);
// OK when name can be a table file inside a db directory: not empty, not "." or "..",
// no '/' and no NUL (a manifest must not lead a reader or a clean-up outside the db).
// Corruption saying why otherwise.
Status CheckTableFileName(std::string_view name);

// True for the names of files a db directory's versions are made of (manifests and
// table files, complete or not).
bool IsDbFileName(std::string_view name);
// True for the temporary names of a write-then-rename (nutchfs::WriteFileAtomically's
// "NAME.tmp.*", a publication's or a lock removal's ".tmp.*"): what a process that died
// between writing and renaming leaves behind.
bool IsTemporaryFileName(std::string_view name);

// Creates dir (if needed) and four empty table files of version 1 in it, durably;
// returns their manifest, not installed.
Result<Manifest> CreateEmptyTables(nutchfs::Env& env, const std::string& dir);

// The version CURRENT names in dir. NotFound if dir holds no db, Corruption if CURRENT
// is not "MANIFEST-<n>\n".
Result<uint64_t> ReadCurrentVersion(nutchfs::Env& env, const std::string& dir);
// MANIFEST-<version> of dir; NotFound if it does not exist.
Result<Manifest> ReadManifest(nutchfs::Env& env, const std::string& dir, uint64_t version);
// The manifest CURRENT names in dir. NotFound if dir holds no db.
Result<Manifest> ReadCurrentManifest(nutchfs::Env& env, const std::string& dir);

// The two steps of publishing a version, each atomic and durable (write-temp, sync,
// rename, directory sync): write MANIFEST-<version>, then switch CURRENT to it.
// REQUIRES: every table file m names is complete and synced.
Status WriteManifest(nutchfs::Env& env, const std::string& dir, const Manifest& m);
Status SetCurrent(nutchfs::Env& env, const std::string& dir, uint64_t version);
// Both steps: m becomes the current version.
Status InstallManifest(nutchfs::Env& env, const std::string& dir, const Manifest& m);
// Deletes table and manifest files of dir that no manifest in `live` uses, and temporary
// files. Readers that opened an older version keep reading it through their open files.
// REQUIRES: the caller holds the directory's writer lock (no write is in progress).
Status RemoveObsoleteFiles(nutchfs::Env& env, const std::string& dir,
                           const std::vector<const Manifest*>& live);
// Deletes the temporary files of dir only: what a collector may delete while some live
// version's manifest cannot be read (its tables are not known).
Status RemoveTemporaryFiles(nutchfs::Env& env, const std::string& dir);

}  // namespace webdb

#endif  // WEBDB_DB_MANIFEST_H_
