// BashCompletion: a program's bash completion script, made from its command-line spec
// (tools/cli_spec.h) by the cli_docs generator at build time: commands, each command's
// options, and the values of options and operands the spec knows (table names, config
// keys, log levels; files and directories by bash's own completion).
// A pure function; thread-safe.
#ifndef TOOLS_BASH_COMPLETION_H_
#define TOOLS_BASH_COMPLETION_H_

#include <string>

#include "tools/cli_spec.h"

namespace tools {

// A script for /usr/share/bash-completion/completions/PROG (or `source`): it defines
// _PROG_complete and registers it with `complete` for PROG.
std::string BashCompletion(const ProgramSpec& program);

}  // namespace tools

#endif  // TOOLS_BASH_COMPLETION_H_
