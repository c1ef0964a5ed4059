// The version commands of `webdb` (docs/CLI.md, "versions, rollback, keep, drop-version" and
// "compact"): list the versions a db keeps, roll back to one of them, change how many it keeps,
// drop one, merge the tables' runs into their bases (a new version with the same rows). Each
// writes its result to out and a line for humans to stderr (unless --quiet). Not thread-safe
// with respect to the streams they write.
#ifndef TOOLS_VERSION_COMMANDS_H_
#define TOOLS_VERSION_COMMANDS_H_

#include <cstdio>

#include "nutchfs/env.h"
#include "tools/cli_args.h"

namespace tools {

// The kept versions, newest first: a table for humans, or with --json one object.
Result<int> RunVersions(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

// Makes kept version inv.version current again, as a new version (webdb/db/versions.h).
Result<int> RunRollback(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

// Drops kept version inv.version, not the current one (webdb/db/versions.h, DropVersion).
Result<int> RunDropVersion(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

// Sets the db's keep setting to inv.keep (a new version sharing every table).
Result<int> RunKeep(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

// Merges every table's runs into its base (webdb/db/compact.h), as a new version (round).
Result<int> RunCompact(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

}  // namespace tools

#endif  // TOOLS_VERSION_COMMANDS_H_
