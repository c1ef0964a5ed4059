// ParseArgs: a command line split by a program's spec (tools/cli_spec.h) into its words
// (the command and its operands) and the options given, the way all three programs read
// theirs:
//   - options may come before, between or after the words; "--" ends them, so a word that
//     starts with '-' can follow it; a lone "-" is a word (standard input);
//   - `--name VALUE` or `--name=VALUE` for an option with an argument (VALUE may start
//     with '-': `--writer -1`), `--name` for a switch, `-q` for a short form;
//   - names are never abbreviated (`--mem` is unknown, not `--memory`), and a value option
//     given twice is an error.
// Errors are InvalidArgument with a message for the user. Plain values; thread-safe.
#ifndef TOOLS_CLI_PARSER_H_
#define TOOLS_CLI_PARSER_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "nutchfs/status.h"
#include "tools/cli_spec.h"

namespace tools {

struct ParsedArgs {
  std::vector<std::string> words;             // the command first, then its operands
  std::map<std::string, std::string> values;  // value options given, by name
  std::set<std::string> switches;             // switches given

  bool Given(const std::string& option) const {
    return values.contains(option) || switches.contains(option);
  }
  bool Switch(const std::string& option) const { return switches.contains(option); }
  std::optional<std::string> Value(const std::string& option) const;
  // Sets *to to the option's value when it was given.
  void CopyValue(const std::string& option, std::string* to) const;
};

nutchfs::Result<ParsedArgs> ParseArgs(const ProgramSpec& program, int argc,
                                      const char* const* argv);

// InvalidArgument "--X does not apply to CMD" for the first option given that command
// does not take.
nutchfs::Status CheckOptionsTaken(const ProgramSpec& program, const CommandSpec& command,
                                  const ParsedArgs& args);

}  // namespace tools

#endif  // TOOLS_CLI_PARSER_H_
