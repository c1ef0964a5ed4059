// ManPage: a program's manual page, roff for man(1), made from its command-line spec
// (tools/cli_spec.h) by the cli_docs generator at build time, so that the man page says
// what `PROG help CMD` says.
// A pure function; thread-safe.
#ifndef TOOLS_MAN_PAGE_H_
#define TOOLS_MAN_PAGE_H_

#include <string>
#include <string_view>

#include "tools/cli_spec.h"

namespace tools {

// The page of section 1: NAME, SYNOPSIS, DESCRIPTION, COMMANDS (each with its synopsis,
// summary and options), OPTIONS (those of every command), EXIT STATUS, SEE ALSO.
std::string ManPage(const ProgramSpec& program);

// text for roff: backslashes and hyphens escaped, a leading '.' or '\'' made literal.
std::string RoffEscape(std::string_view text);

}  // namespace tools

#endif  // TOOLS_MAN_PAGE_H_
