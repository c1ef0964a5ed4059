// The command-line specs (tools/cli_spec.h) and the help rendered from them: every name a
// command lists is an option of its program, the help of a command shows its options and
// no other's, `PROG --version` alone is the program's version.
#include "tools/cli_spec.h"

#include <catch2/catch.hpp>
#include <regex>
#include <set>

namespace tools {
namespace {

// The "--name" words of the option lines of a help text.
std::set<std::string> OptionsListed(const std::string& help) {
  std::set<std::string> names;
  std::regex line("\n  --([a-z-]+)");
  for (auto it = std::sregex_iterator(help.begin(), help.end(), line); it != std::sregex_iterator();
       ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

TEST_CASE("every option a command takes is one of its program's, listed once") {
  for (const ProgramSpec* program : AllProgramSpecs()) {
    for (const CommandSpec& command : program->commands) {
      std::set<std::string> seen;
      INFO(program->name + " " + command.name);
      CHECK(command.synopsis.starts_with(program->name + " " + command.name));
      CHECK_FALSE(command.summary.empty());
      CHECK(command.min_operands <= command.max_operands);
      for (const CommandOption& o : command.options) {
        CHECK(program->FindOption(o.name) != nullptr);
        CHECK(seen.insert(o.name).second);
      }
      for (const std::string& common : program->common) {
        CHECK(program->FindOption(common) != nullptr);
        CHECK_FALSE(seen.contains(common));
      }
    }
  }
}

TEST_CASE("a command's help lists its options only") {
  const ProgramSpec& webdb = WebdbSpec();
  const std::string dump = CommandHelp(webdb, *webdb.FindCommand("dump"));
  CHECK_THAT(dump, Catch::StartsWith("usage: webdb dump (DB | --config FILE) --table T"));
  CHECK(OptionsListed(dump) ==
        std::set<std::string>{"table", "config", "version", "quiet", "log-level", "help"});
  // A command's own wording of a shared option replaces the option's.
  const std::string verify = CommandHelp(webdb, *webdb.FindCommand("verify"));
  CHECK_THAT(verify, Catch::Contains("a JSON summary on standard output, the findings on stderr"));
  CHECK_THAT(CommandHelp(webdb, *webdb.FindCommand("versions")),
             !Catch::Contains("the findings on stderr"));
  const ProgramSpec& distwriter = DistwriterSpec();
  CHECK(OptionsListed(CommandHelp(distwriter, *distwriter.FindCommand("launch"))) ==
        std::set<std::string>{"config", "memory", "session", "json", "rank", "iterations",
                              "epsilon", "damping", "quiet", "log-level", "help"});
}

TEST_CASE("the program's help names every command and the exit codes") {
  for (const ProgramSpec* program : AllProgramSpecs()) {
    const std::string help = ProgramHelp(*program);
    CHECK_THAT(help, Catch::StartsWith("usage: " + program->name + " COMMAND"));
    for (const CommandSpec& c : program->commands) CHECK_THAT(help, Catch::Contains(c.synopsis));
    CHECK_THAT(help, Catch::Contains("  3  bad input"));
    // No line runs past 100 columns.
    size_t start = 0;
    for (size_t eol = help.find('\n'); eol != std::string::npos; eol = help.find('\n', start)) {
      CHECK(eol - start <= 100);
      start = eol + 1;
    }
  }
}

TEST_CASE("help of a command that does not exist is an error naming it") {
  auto help = HelpFor(WebdbSpec(), "frob");
  REQUIRE_FALSE(help.has_value());
  CHECK(help.error().IsInvalidArgument());
  CHECK_THAT(help.error().message(), Catch::Contains("no command 'frob'"));
  CHECK(HelpFor(WebdbSpec(), "").value() == ProgramHelp(WebdbSpec()));
}

TEST_CASE("the program's version is asked by --version alone, not with a command") {
  const char* alone[] = {"webdb", "--version"};
  const char* read[] = {"webdb", "stats", "db", "--version", "2"};
  const char* first[] = {"webdb", "--version", "2"};
  CHECK(IsVersionRequest(2, alone));
  CHECK_FALSE(IsVersionRequest(5, read));
  CHECK_FALSE(IsVersionRequest(3, first));
  CHECK(std::regex_match(VersionLine(DistwriterSpec()),
                         std::regex(R"(distwriter [0-9]+\.[0-9]+\.[0-9]+)")));
}

TEST_CASE("help completes to the other commands") {
  const CommandSpec* help = NutchfsSpec().FindCommand("help");
  REQUIRE(help != nullptr);
  CHECK(help->operand_words == std::vector<std::string>{"ls", "put", "get", "rm", "locks"});
}

}  // namespace
}  // namespace tools
