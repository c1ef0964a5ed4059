#include "tools/cli_parser.h"

namespace tools {
namespace {

using nutchfs::Err;
using nutchfs::Status;

Status Usage(std::string msg) { return Status::InvalidArgument(std::move(msg)); }

const OptionSpec* FindShort(const ProgramSpec& program, char c) {
  for (const OptionSpec& o : program.options) {
    if (o.short_name == c) return &o;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> ParsedArgs::Value(const std::string& option) const {
  auto it = values.find(option);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

void ParsedArgs::CopyValue(const std::string& option, std::string* to) const {
  if (auto v = Value(option)) *to = std::move(*v);
}

nutchfs::Result<ParsedArgs> ParseArgs(const ProgramSpec& program, int argc,
                                      const char* const* argv) {
  ParsedArgs parsed;
  bool options_ended = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (options_ended || arg == "-" || !arg.starts_with("-")) {
      parsed.words.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    const OptionSpec* option = nullptr;
    std::optional<std::string> inline_value;
    if (arg.starts_with("--")) {
      const size_t eq = arg.find('=');
      option = program.FindOption(arg.substr(2, eq == std::string::npos ? eq : eq - 2));
      if (eq != std::string::npos) inline_value = arg.substr(eq + 1);
    } else if (arg.size() == 2) {
      option = FindShort(program, arg[1]);
    }
    if (option == nullptr) {
      return Err(Usage("unrecognised option '" + arg.substr(0, arg.find('=')) + "'"));
    }
    if (option->arg.empty()) {
      if (inline_value) return Err(Usage("option '--" + option->name + "' takes no value"));
      parsed.switches.insert(option->name);
      continue;
    }
    if (!inline_value) {
      if (i + 1 == argc) {
        return Err(
            Usage("the option '--" + option->name + "' needs a value (" + option->arg + ")"));
      }
      inline_value = argv[++i];
    }
    if (!parsed.values.emplace(option->name, *inline_value).second) {
      return Err(Usage("option '--" + option->name + "' cannot be given more than once"));
    }
  }
  return parsed;
}

Status CheckOptionsTaken(const ProgramSpec& program, const CommandSpec& command,
                         const ParsedArgs& args) {
  for (const OptionSpec& o : program.options) {
    if (args.Given(o.name) && !program.Takes(command, o.name)) {
      return Usage("--" + o.name + " does not apply to " + command.name);
    }
  }
  return Status::OK();
}

}  // namespace tools
