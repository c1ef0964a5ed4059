#include "tools/cli_parser.h"

#include <catch2/catch.hpp>

namespace tools {
namespace {

nutchfs::Result<ParsedArgs> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "webdb");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return ParseArgs(WebdbSpec(), static_cast<int>(argv.size()), argv.data());
}

void CheckError(std::vector<std::string> args, const std::string& says) {
  auto parsed = Parse(args);
  REQUIRE_FALSE(parsed.has_value());
  CHECK(parsed.error().IsInvalidArgument());
  CHECK_THAT(parsed.error().message(), Catch::Contains(says));
}

TEST_CASE("words and options in any order, values after a space or '='") {
  auto p = Parse({"-q", "dump", "db", "--table=pagesByURL", "--version", "3"});
  REQUIRE(p);
  CHECK(p->words == std::vector<std::string>{"dump", "db"});
  CHECK(p->Value("table") == "pagesByURL");
  CHECK(p->Value("version") == "3");
  CHECK(p->Switch("quiet"));
  CHECK_FALSE(p->Given("json"));
  CHECK_FALSE(p->Value("config").has_value());
}

TEST_CASE("a value may start with '-', '-' is a word, '--' ends the options") {
  auto p = Parse({"apply", "db", "-", "--memory", "-1", "--", "--json", "-q"});
  REQUIRE(p);
  CHECK(p->words == std::vector<std::string>{"apply", "db", "-", "--json", "-q"});
  CHECK(p->Value("memory") == "-1");
  CHECK_FALSE(p->Switch("quiet"));
  CHECK(Parse({"stats", "db", "--log-level="}).value().Value("log-level") == "");
}

TEST_CASE("unknown, abbreviated, repeated and valueless options are errors") {
  CheckError({"stats", "db", "--bogus"}, "unrecognised option '--bogus'");
  CheckError({"dump", "db", "--tab", "pagesByURL"}, "unrecognised option '--tab'");
  CheckError({"stats", "db", "-x"}, "unrecognised option '-x'");
  CheckError({"stats", "db", "-qh"}, "unrecognised option '-qh'");
  CheckError({"dump", "db", "--table", "a", "--table", "b"},
             "option '--table' cannot be given more than once");
  CheckError({"dump", "db", "--table"}, "the option '--table' needs a value (T)");
  CheckError({"stats", "db", "--json=yes"}, "option '--json' takes no value");
  CHECK(Parse({"stats", "db", "-q", "--quiet"}).has_value());  // a switch twice is harmless
}

TEST_CASE("an option the command does not take is named") {
  auto p = Parse({"stats", "db", "--memory", "1G"});
  REQUIRE(p);
  nutchfs::Status s = CheckOptionsTaken(WebdbSpec(), *WebdbSpec().FindCommand("stats"), *p);
  CHECK(s.IsInvalidArgument());
  CHECK(s.message() == "--memory does not apply to stats");
  CHECK(CheckOptionsTaken(WebdbSpec(), *WebdbSpec().FindCommand("verify"), *p).ok());
}

}  // namespace
}  // namespace tools
