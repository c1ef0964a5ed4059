#include "tools/man_page.h"

#include <cctype>

namespace tools {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// A tagged paragraph per option: the label in bold, its argument in italics.
std::string OptionParagraph(const OptionSpec& o, const std::string& help) {
  std::string out = ".TP\n\\fB\\-\\-" + RoffEscape(o.name) + "\\fR";
  if (!o.arg.empty()) out += " \\fI" + RoffEscape(o.arg) + "\\fR";
  if (o.short_name != 0) out += ", \\fB\\-" + std::string(1, o.short_name) + "\\fR";
  return out + "\n" + RoffEscape(help) + "\n";
}

// Each line of a synopsis, in bold, one a line (no filling).
std::string SynopsisLines(std::string_view synopsis) {
  std::string out = ".nf\n";
  while (!synopsis.empty()) {
    size_t eol = synopsis.find('\n');
    std::string_view line = synopsis.substr(0, eol);
    synopsis.remove_prefix(eol == std::string_view::npos ? synopsis.size() : eol + 1);
    size_t start = line.find_first_not_of(' ');
    if (start != std::string_view::npos) out += "\\fB" + RoffEscape(line.substr(start)) + "\\fR\n";
  }
  return out + ".fi\n";
}

}  // namespace

std::string RoffEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      if ((c == '.' || c == '\'') && (out.empty() || out.back() == '\n')) out += "\\&";
      out += c;
    }
  }
  return out;
}

std::string ManPage(const ProgramSpec& program) {
  const std::string name = RoffEscape(program.name);
  std::string out = ".\\\" Generated from tools/cli_spec.h by cli_docs: edit the spec, not this.\n";
  out += ".TH " + Upper(name) + " 1 \"\" \"" + RoffEscape(VersionLine(program)) +
         "\" \"User Commands\"\n";
  out += ".SH NAME\n" + name + " \\- " + RoffEscape(program.summary) + "\n";
  out +=
      ".SH SYNOPSIS\n\\fB" + name + "\\fR \\fICOMMAND\\fR [\\fIOPTION\\fR]... [\\fIARG\\fR]...\n";
  out += ".br\n\\fB" + name + " \\-\\-version\\fR\n";
  out += ".SH DESCRIPTION\n" + RoffEscape(program.description) + "\n";
  out += ".SH COMMANDS\n";
  for (const CommandSpec& c : program.commands) {
    out += ".SS " + RoffEscape(c.name) + "\n" + SynopsisLines(c.synopsis) + ".PP\n" +
           RoffEscape(c.summary) + "\n";
    if (c.options.empty()) continue;
    out += ".RS\n";
    for (const CommandOption& own : c.options) {
      const OptionSpec* o = program.FindOption(own.name);
      out += OptionParagraph(*o, own.help.empty() ? o->help : own.help);
    }
    out += ".RE\n";
  }
  out += ".SH OPTIONS\nEvery command takes these.\n";
  for (const std::string& common : program.common) {
    const OptionSpec* o = program.FindOption(common);
    out += OptionParagraph(*o, o->help);
  }
  out +=
      ".TP\n\\fB\\-\\-version\\fR\nAlone, with no command: print the program's version and "
      "exit.\n";
  out += ".SH \"EXIT STATUS\"\n";
  for (const auto& [code, meaning] : program.exit_codes) {
    out += ".TP\n" + std::to_string(code) + "\n" + RoffEscape(meaning) + "\n";
  }
  out += ".SH \"SEE ALSO\"\n";
  for (const ProgramSpec* other : AllProgramSpecs()) {
    if (other->name != program.name) out += "\\fB" + RoffEscape(other->name) + "\\fR(1), ";
  }
  out += RoffEscape(program.see_also) + "\n";
  return out;
}

}  // namespace tools
