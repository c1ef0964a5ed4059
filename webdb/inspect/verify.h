// Verifying a single-machine db (`webdb verify`, docs/CLI.md): an fsck that reads every
// table file of every kept version end to end (webdb/inspect/table_check.h; a file shared by
// several versions once), checks the invariants between the tables of the version verified
// (the current one, or options.version: webdb/inspect/cross_check.h), that every kept
// manifest can be read, and that CURRENT, the manifests and the files of the directory
// agree (no file missing, none left over). Findings are
// handed out one by one as they are found; memory stays within the sort budget plus
// one read buffer per open table whatever the db size.
//
// Verification only reads the db. While a writer holds LOCK its unfinished files are
// not reported as left over. Stateless; safe from several threads on distinct dbs.
#ifndef WEBDB_INSPECT_VERIFY_H_
#define WEBDB_INSPECT_VERIFY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/db/manifest.h"
#include "webdb/inspect/finding.h"

namespace webdb {

struct VerifyOptions {
  // Budget of the external sorts of the cross-table checks, in bytes.
  size_t memory_budget = size_t{64} << 20;
  // Where the sorts spill: a scratch directory (created if missing, left empty).
  // REQUIRES: tmp_env set (VerifyDb returns InvalidArgument otherwise).
  nutchfs::Env* tmp_env = nullptr;
  std::string tmp_dir;
  // Called with each finding; may be empty.
  FindingFn on_finding;
  // Called as rows are read (each table file, each cross check); may be empty.
  ProgressFn progress;
  // The kept version to verify (webdb/db/versions.h); the current one when empty. The
  // directory checks are made against the current version whatever it is.
  std::optional<uint64_t> version;
};

struct VerifySummary {
  uint64_t version = 0;  // the version whose invariants were checked
  // The versions whose table files were read: version first, then the other kept ones
  // (a distributed db: rounds), newest first; not those whose manifest cannot be read.
  std::vector<uint64_t> versions_checked;
  uint64_t files = 0;  // table files read end to end
  uint64_t rows = 0;   // rows read in those files
  uint64_t pages = 0, links = 0;
  uint64_t findings = 0;
  bool writer_running = false;  // LOCK was held: leftover files were not looked for
  bool clean() const { return findings == 0; }
};

// NotFound when dir holds no db or options.version is not kept; other errors when verification itself could not run
// (the scratch directory). Damage of the db is reported as findings, not as an error.
Result<VerifySummary> VerifyDb(nutchfs::Env& env, const std::string& dir,
                               const VerifyOptions& options);

// The directory check of VerifyDb, for any directory of table files (a single-machine
// db, a section of a distributed one): db files that none of `live` names, unless
// `spared` (when set) says they may stay (a live version whose manifest cannot be read
// may name any; a failed round keeps its own), and visible temporary files are findings
// ("left over"). Hidden ones (".tmp.*": a lock release cut short) are invisible, as in
// NutchFS. A failed listing is a finding.
void CheckLeftovers(nutchfs::Env& env, const std::string& dir,
                    const std::vector<const Manifest*>& live,
                    const std::function<bool(const std::string& name)>& spared,
                    FindingLog& log);

}  // namespace webdb

#endif  // WEBDB_INSPECT_VERIFY_H_
