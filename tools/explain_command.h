// `webdb explain DB URL` (docs/CLI.md): what a version of the db says about one url —
// page, same-md5 pages, outlinks, inlinks, due and generate rank (webdb/inspect/explain.h) —
// and, for a single-machine db, its history in the versions the db keeps: its record in
// each, when it appeared, which rule removed it and its links. A report for humans, or
// with --json one object. Not thread-safe with respect to the stream it writes.
#ifndef TOOLS_EXPLAIN_COMMAND_H_
#define TOOLS_EXPLAIN_COMMAND_H_

#include <cstdio>

#include "nutchfs/env.h"
#include "tools/cli_args.h"

namespace tools {

Result<int> RunExplain(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

}  // namespace tools

#endif  // TOOLS_EXPLAIN_COMMAND_H_
