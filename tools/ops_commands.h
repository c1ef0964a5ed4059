// The operator commands of `webdb` (docs/CLI.md): verify (an fsck of a db) and stats
// (what is in a db). Each writes its results to out; findings and summaries for humans
// go to stderr. Not thread-safe with respect to the streams they write.
#ifndef TOOLS_OPS_COMMANDS_H_
#define TOOLS_OPS_COMMANDS_H_

#include <cstdio>

#include "nutchfs/env.h"
#include "tools/cli_args.h"

namespace tools {

// Exit 0 when the db is sound, 3 (kExitBadInput) when something was found.
Result<int> RunVerify(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

// One JSON object (the default, also with --json; keys "pages" and "links" first) or,
// with --text, a report for humans. --quick reads the manifest(s) only.
Result<int> RunStats(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

}  // namespace tools

#endif  // TOOLS_OPS_COMMANDS_H_
