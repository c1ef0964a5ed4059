// The crawl-cycle commands of `webdb` (docs/CLI.md, docs/CRAWL.md): inject, update,
// generate, against a single-machine db or, with --config, a distributed one (the calls
// then go through the k writers exactly as `distwriter launch` sends them), and
// `calls inject|warc`, which stream the converters' calls as JSON Lines.
//
// Functions are not thread-safe with respect to the streams they write.
#ifndef TOOLS_CRAWL_COMMANDS_H_
#define TOOLS_CRAWL_COMMANDS_H_

#include <cstdio>

#include "nutchfs/env.h"
#include "tools/cli_args.h"

namespace tools {

// Each returns kExitOk or a failed Status (InvalidArgument for bad input).
Result<int> RunInject(nutchfs::Env& env, const Invocation& inv, std::FILE* out);
Result<int> RunUpdate(nutchfs::Env& env, const Invocation& inv, std::FILE* out);
Result<int> RunGenerate(nutchfs::Env& env, const Invocation& inv, std::FILE* out);
Result<int> RunCalls(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

}  // namespace tools

#endif  // TOOLS_CRAWL_COMMANDS_H_
