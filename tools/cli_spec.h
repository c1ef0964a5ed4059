// The command lines of the three programs (`webdb`, `distwriter`, `nutchfs`) as data: each
// program's commands with their operands, synopsis, summary and options, and each option's
// argument and help. It is the one source of the help texts (`PROG help CMD`, `PROG CMD
// --help`), of the man pages (tools/man_page.h) and of the bash completion
// (tools/bash_completion.h), all rendered from it, and of which options a command takes
// when webdb parses its command line (tools/cli_args.cc). A new command, or a new option,
// is one entry here (and its parsing); its help, man page and completion follow.
//
// The tables are built once, on first use, and never change: thread-safe.
#ifndef TOOLS_CLI_SPEC_H_
#define TOOLS_CLI_SPEC_H_

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/status.h"

namespace tools {

// What completes a word: a file name, a directory name, or one of fixed words.
enum class Completion { kNone, kFile, kDir, kWords };

struct OptionSpec {
  std::string name;                         // the long form without "--": "memory"
  char short_name = 0;                      // 'q' for -q; 0: none
  std::string arg;                          // the argument's placeholder ("SIZE"); empty: a switch
  std::string help;                         // what it does, in one or two sentences
  Completion complete = Completion::kNone;  // of the argument
  std::vector<std::string> words = {};      // kWords: the values it takes
};

// An option as one command takes it: help, if not empty, replaces the option's own.
struct CommandOption {
  std::string name;
  std::string help;
};

constexpr size_t kAnyNumber = std::numeric_limits<size_t>::max();

struct CommandSpec {
  std::string name;
  std::string synopsis;  // the whole usage line(s), program name first; "\n" between forms
  std::string summary;   // one sentence
  std::vector<CommandOption> options;  // besides the program's common options
  size_t min_operands = 0;             // positional arguments after the command
  size_t max_operands = 0;
  Completion operands = Completion::kFile;
  std::vector<std::string> operand_words = {};  // kWords: the first operand's values
};

struct ProgramSpec {
  std::string name;
  std::string summary;      // one line: what the program is
  std::string description;  // a paragraph
  std::vector<CommandSpec> commands;
  std::vector<OptionSpec> options;  // every option of every command
  std::vector<std::string> common;  // options every command takes
  std::vector<std::pair<int, std::string>> exit_codes;
  std::string see_also;  // where the full documentation is

  const CommandSpec* FindCommand(std::string_view command) const;
  const OptionSpec* FindOption(std::string_view option) const;
  // True if command takes option (its own or a common one).
  bool Takes(const CommandSpec& command, std::string_view option) const;
};

// Adds what every program has: the options --log-level LEVEL and --help, which every
// command takes, and the command `PROG help [COMMAND]`, whose operand completes to the
// other commands' names.
void AddCommonParts(ProgramSpec* program);

const ProgramSpec& WebdbSpec();
const ProgramSpec& DistwriterSpec();
const ProgramSpec& NutchfsSpec();
// All three, for the generators.
std::vector<const ProgramSpec*> AllProgramSpecs();

// "webdb 1.0.0": what PROG --version prints (the project's version, CMakeLists.txt).
std::string VersionLine(const ProgramSpec& program);
// True for `PROG --version`, the only argument: the program's version. (webdb's read
// commands take --version V, a db version; with a command it keeps that meaning.)
bool IsVersionRequest(int argc, const char* const* argv);

// `PROG --help`, `PROG help`: every command's synopsis and summary, the common options,
// the exit codes.
std::string ProgramHelp(const ProgramSpec& program);
// `PROG help CMD`, `PROG CMD --help`: that command's synopsis, summary and options only.
// REQUIRES: command is one of program's.
std::string CommandHelp(const ProgramSpec& program, const CommandSpec& command);
// `PROG help [CMD]`: the help of CMD, or the program's when command is empty; an unknown
// command is InvalidArgument.
nutchfs::Result<std::string> HelpFor(const ProgramSpec& program, std::string_view command);

}  // namespace tools

#endif  // TOOLS_CLI_SPEC_H_
