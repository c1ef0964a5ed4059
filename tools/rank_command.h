// `webdb rank` (docs/CLI.md): link analysis of a db — a single-machine db by
// webdb/rank/rank_db.h, a distributed one (--config) by its k writers at once. Progress
// (one line an iteration: its L1 change and seconds) goes to stderr unless --quiet;
// --json prints a summary object on stdout. Not thread-safe with respect to the streams
// it writes.
#ifndef TOOLS_RANK_COMMAND_H_
#define TOOLS_RANK_COMMAND_H_

#include <cstdio>

#include "nutchfs/env.h"
#include "tools/cli_args.h"

namespace tools {

Result<int> RunRank(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

}  // namespace tools

#endif  // TOOLS_RANK_COMMAND_H_
