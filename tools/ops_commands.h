// The operator commands of `webdb` (docs/CLI.md): verify (an fsck of a db), stats
// (what is in a db) and explain (what it says about one url). Each writes its results to out; findings and summaries for humans
// go to stderr. Not thread-safe with respect to the streams they write.
#ifndef TOOLS_OPS_COMMANDS_H_
#define TOOLS_OPS_COMMANDS_H_

#include <cstdio>

#include "nutchfs/env.h"
#include "tools/cli_args.h"

namespace tools {

// Exit 0 when the db is sound, 3 (kExitBadInput) when something was found.
Result<int> RunVerify(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

// What the db says about one url: a report for humans, or with --json one object.
Result<int> RunExplain(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

// One JSON object (the default, keys "pages" and "links" first) or, with --text, a
// report for humans.
Result<int> RunStats(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

}  // namespace tools

#endif  // TOOLS_OPS_COMMANDS_H_
