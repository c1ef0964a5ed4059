#include "tools/cli_spec.h"

#include <algorithm>
#include <cstring>

namespace tools {
namespace {

constexpr size_t kWidth = 100;

// "--memory SIZE" or "--quiet, -q".
std::string OptionLabel(const OptionSpec& o) {
  std::string label = "--" + o.name;
  if (!o.arg.empty()) label += " " + o.arg;
  if (o.short_name != 0) label += std::string(", -") + o.short_name;
  return label;
}

// text as lines of at most kWidth columns, each after `indent` spaces but the first,
// which continues a line already `indent` columns wide.
std::string Wrap(std::string_view text, size_t indent) {
  std::string out;
  size_t column = indent;
  while (!text.empty()) {
    size_t end = text.find(' ');
    std::string_view word = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (word.empty()) continue;
    if (column > indent && column + 1 + word.size() > kWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (column > indent) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out;
}

// The options of a command, one a paragraph, labels in a column.
using OptionRows = std::vector<std::pair<const OptionSpec*, std::string>>;

std::string OptionTable(const OptionRows& rows) {
  size_t label_width = 0;
  for (const auto& [option, help] : rows) {
    label_width = std::max(label_width, OptionLabel(*option).size());
  }
  const size_t indent = 2 + label_width + 2;
  std::string out;
  for (const auto& [option, help] : rows) {
    std::string label = OptionLabel(*option);
    out += "  " + label + std::string(label_width - label.size() + 2, ' ');
    out += Wrap(help, indent) + "\n";
  }
  return out;
}

std::string ExitCodes(const ProgramSpec& program) {
  std::string out = "Exit codes:\n";
  for (const auto& [code, meaning] : program.exit_codes) {
    out += "  " + std::to_string(code) + "  " + Wrap(meaning, 5) + "\n";
  }
  return out;
}

}  // namespace

const CommandSpec* ProgramSpec::FindCommand(std::string_view command) const {
  for (const CommandSpec& c : commands) {
    if (c.name == command) return &c;
  }
  return nullptr;
}

const OptionSpec* ProgramSpec::FindOption(std::string_view option) const {
  for (const OptionSpec& o : options) {
    if (o.name == option) return &o;
  }
  return nullptr;
}

bool ProgramSpec::Takes(const CommandSpec& command, std::string_view option) const {
  auto own = [&](const CommandOption& o) { return o.name == option; };
  return std::any_of(command.options.begin(), command.options.end(), own) ||
         std::find(common.begin(), common.end(), option) != common.end();
}

std::string VersionLine(const ProgramSpec& program) { return program.name + " " + WEBDB_VERSION; }

bool IsVersionRequest(int argc, const char* const* argv) {
  return argc == 2 && std::strcmp(argv[1], "--version") == 0;
}

std::string ProgramHelp(const ProgramSpec& program) {
  std::string out = "usage: " + program.name + " COMMAND [OPTION]... [ARG]...\n\n" + program.name +
                    ": " + program.summary + "\n\nCommands:\n";
  for (const CommandSpec& c : program.commands) {
    out += "  " + c.synopsis + "\n      " + Wrap(c.summary, 6) + "\n";
  }
  // --version alone is no command's option: webdb's read commands take --version V.
  static const OptionSpec kVersion{"version", 0, "",
                                   "alone, with no command: print the "
                                   "program's version and exit"};
  OptionRows rows;
  for (const std::string& name : program.common) {
    const OptionSpec* o = program.FindOption(name);
    rows.emplace_back(o, o->help);
  }
  rows.emplace_back(&kVersion, kVersion.help);
  out += "\nOptions of every command:\n" + OptionTable(rows);
  out += "\n" + ExitCodes(program);
  out += "\n" +
         Wrap("'" + program.name + " help COMMAND' lists a command's options. " + program.see_also,
              0) +
         "\n";
  return out;
}

std::string CommandHelp(const ProgramSpec& program, const CommandSpec& command) {
  std::string out = "usage: " + command.synopsis + "\n\n" + Wrap(command.summary, 0) + "\n";
  OptionRows rows;
  for (const CommandOption& own : command.options) {
    const OptionSpec* o = program.FindOption(own.name);
    rows.emplace_back(o, own.help.empty() ? o->help : own.help);
  }
  for (const std::string& name : program.common) {
    const OptionSpec* o = program.FindOption(name);
    rows.emplace_back(o, o->help);
  }
  out += "\nOptions:\n" + OptionTable(rows);
  return out;
}

nutchfs::Result<std::string> HelpFor(const ProgramSpec& program, std::string_view command) {
  if (command.empty()) return ProgramHelp(program);
  const CommandSpec* c = program.FindCommand(command);
  if (c == nullptr) {
    return nutchfs::Err(nutchfs::Status::InvalidArgument(
        "no command '" + std::string(command) + "' (" + program.name + " help lists them)"));
  }
  return CommandHelp(program, *c);
}

void AddCommonParts(ProgramSpec* program) {
  program->options.push_back({"log-level",
                              0,
                              "LEVEL",
                              "trace, debug, info, warn (default), error, critical or off",
                              Completion::kWords,
                              {"trace", "debug", "info", "warn", "error", "critical", "off"}});
  program->options.push_back({"help", 'h', "", "print this help and exit"});
  program->common.insert(program->common.end(), {"log-level", "help"});
  CommandSpec help{"help",
                   program->name + " help [COMMAND]",
                   "Prints the help of COMMAND, or the list of commands.",
                   {},
                   0,
                   1,
                   Completion::kWords};
  for (const CommandSpec& c : program->commands) help.operand_words.push_back(c.name);
  program->commands.push_back(std::move(help));
}

std::vector<const ProgramSpec*> AllProgramSpecs() {
  return {&WebdbSpec(), &DistwriterSpec(), &NutchfsSpec()};
}

}  // namespace tools
