#include "tools/bash_completion.h"

#include <algorithm>

namespace tools {
namespace {

std::string Join(const std::vector<std::string>& words, const char* separator = " ") {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

// "--config --memory -q ...": what a command's options complete to.
std::string OptionWords(const ProgramSpec& program, const CommandSpec& command) {
  std::vector<std::string> words;
  auto add = [&](const std::string& name) {
    const OptionSpec* o = program.FindOption(name);
    words.push_back("--" + o->name);
    if (o->short_name != 0) words.push_back(std::string("-") + o->short_name);
  };
  for (const CommandOption& own : command.options) add(own.name);
  for (const std::string& name : program.common) add(name);
  return Join(words);
}

// The shell code that completes a word of kind `complete`: words from a list, or names
// of files or directories.
std::string CompleteWith(Completion complete, const std::vector<std::string>& words) {
  switch (complete) {
    case Completion::kWords:
      return "COMPREPLY=($(compgen -W \"" + Join(words) + "\" -- \"$cur\"))";
    case Completion::kDir:
      return "COMPREPLY=($(compgen -d -- \"$cur\"))";
    case Completion::kFile:
      return "COMPREPLY=($(compgen -f -- \"$cur\"))";
    case Completion::kNone:
      break;
  }
  return "COMPREPLY=()";
}

}  // namespace

std::string BashCompletion(const ProgramSpec& program) {
  std::string fn = "_" + program.name + "_complete";
  std::replace(fn.begin(), fn.end(), '-', '_');
  std::vector<std::string> commands, value_options;
  for (const CommandSpec& c : program.commands) commands.push_back(c.name);
  for (const OptionSpec& o : program.options) {
    if (!o.arg.empty()) value_options.push_back("--" + o.name);
  }
  std::string out = "# bash completion for " + program.name +
                    ", generated from tools/cli_spec.h by cli_docs: edit the spec, not this.\n";
  out += fn + "() {\n";
  out += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n";
  out += "  local command='' operand=0 i\n";
  out +=
      "  # The command is the first word that is neither an option nor an option's value;\n"
      "  # operand counts the words after it.\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
  out += "    case ${COMP_WORDS[i]} in\n";
  out += "      " + Join(value_options, "|") + ") ((i++)) ;;\n";
  out += "      -*) ;;\n";
  out +=
      "      *) if [ -z \"$command\" ]; then command=${COMP_WORDS[i]}; else ((operand++)); fi ;;\n";
  out += "    esac\n  done\n";
  out += "  case $prev in\n";
  for (const OptionSpec& o : program.options) {
    if (o.arg.empty()) continue;
    out += "    --" + o.name + ") " + CompleteWith(o.complete, o.words) + "; return ;;\n";
  }
  out += "  esac\n";
  out += "  if [ -z \"$command\" ]; then\n";
  out += "    COMPREPLY=($(compgen -W \"" + Join(commands) + " --help --version\" -- \"$cur\"))\n";
  out += "    return\n  fi\n";
  out += "  case $command in\n";
  for (const CommandSpec& c : program.commands) {
    out += "    " + c.name + ")\n";
    out += "      if [[ $cur == -* ]]; then\n";
    out += "        COMPREPLY=($(compgen -W \"" + OptionWords(program, c) + "\" -- \"$cur\"))\n";
    if (c.operands == Completion::kWords) {
      out += "      elif [ $operand -eq 0 ]; then\n        " +
             CompleteWith(Completion::kWords, c.operand_words) + "\n";
      out += "      else\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n";
    } else {
      out += "      else\n        " + CompleteWith(c.operands, {}) + "\n";
    }
    out += "      fi ;;\n";
  }
  out += "  esac\n}\n";
  out += "complete -o filenames -F " + fn + " " + program.name + "\n";
  return out;
}

}  // namespace tools
