// Verifying a distributed db (`webdb verify --config FILE`, docs/CLI.md): the checks of
// webdb/inspect/verify.h over the committed round, where each section lives (through NutchFS):
//   - every section's table files read end to end (webdb/inspect/table_check.h), every key
//     inside its section's range (distwriter/partition.h);
//   - the cross-table invariants over the whole db (webdb/inspect/cross_check.h), read through
//     the same concatenation of sections in key order as the distributed reader;
//   - every writer's machine on the same round: its meta/CURRENT names the round of the
//     meta group's view, and its ROUND-<N> is that round's manifest; round files of
//     rounds neither kept nor pinned by a reader (round_versions.h) are left over;
//   - each writer's section/ directory holds the files of those rounds, no other (not
//     looked for in a group whose writer holds its LOCK).
// With options.version, the sections and invariants checked are those of that kept round;
// the machines and directories are checked against the installed one.
// Memory stays within the sort budget plus one read buffer per open table, whatever the
// db size. Only reads the db. Stateless; safe from several threads on distinct dbs.
#ifndef DISTWRITER_DIST_VERIFY_H_
#define DISTWRITER_DIST_VERIFY_H_

#include "distwriter/dist_config.h"
#include "nutchfs/env.h"
#include "webdb/inspect/verify.h"

namespace distwriter {

// options as for webdb::VerifyDb. NotFound when the config's db has no CURRENT at the
// meta group's view, or options.version is not a kept round; other errors when verification itself could not run (the scratch
// directory, a machine that cannot be reached). The summary's version is the round's.
// env: as RunOptions::env (distwriter/round.h).
Result<webdb::VerifySummary> VerifyDistDb(const DistConfig& config,
                                          const webdb::VerifyOptions& options,
                                          nutchfs::Env* env = nullptr);

}  // namespace distwriter

#endif  // DISTWRITER_DIST_VERIFY_H_
