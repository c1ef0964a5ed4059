// The built programs' help and version, as a user asks for them: `PROG help CMD` and
// `PROG CMD --help` print the same text, `PROG --version` the program's version.
#include <catch2/catch.hpp>
#include <regex>

#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "tools/cli_spec.h"

namespace tools {
namespace {

testutil::ProcessResult Run(const testutil::TempDir& dir, const std::string& program,
                            std::vector<std::string> args) {
  args.insert(args.begin(), std::string(PROJECT_BINARY_DIR) + "/tools/" + program);
  return testutil::RunProcess(args, {}, dir.File("run"));
}

TEST_CASE("every program prints its version and the help of each command") {
  testutil::TempDir dir;
  for (const ProgramSpec* program : AllProgramSpecs()) {
    const std::string& name = program->name;
    INFO(name);
    testutil::ProcessResult version = Run(dir, name, {"--version"});
    CHECK(version.exit_code == 0);
    CHECK(std::regex_match(version.out, std::regex(name + R"( [0-9]+\.[0-9]+\.[0-9]+\n)")));
    testutil::ProcessResult help = Run(dir, name, {"--help"});
    CHECK(help.exit_code == 0);
    CHECK(help.out == ProgramHelp(*program));
    CHECK(Run(dir, name, {"help"}).out == help.out);
    for (const CommandSpec& c : program->commands) {
      INFO(c.name);
      testutil::ProcessResult own = Run(dir, name, {"help", c.name});
      CHECK(own.exit_code == 0);
      CHECK(own.out == CommandHelp(*program, c));
      testutil::ProcessResult flag = Run(dir, name, {c.name, "--help"});
      CHECK(flag.exit_code == 0);
      CHECK(flag.out == own.out);
    }
    testutil::ProcessResult unknown = Run(dir, name, {"help", "frob"});
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(unknown.err, Catch::Contains("no command 'frob'"));
  }
}

TEST_CASE("a read command's --version V is still a db version") {
  testutil::TempDir dir;
  const std::string db = dir.File("db");
  REQUIRE(Run(dir, "webdb", {"create", db}).exit_code == 0);
  testutil::ProcessResult stats = Run(dir, "webdb", {"stats", db, "--quick", "--version", "1"});
  CHECK(stats.exit_code == 0);
  CHECK_THAT(stats.out, Catch::StartsWith("{\"pages\":0,\"links\":0"));
  testutil::ProcessResult missing = Run(dir, "webdb", {"stats", db, "--version"});
  CHECK(missing.exit_code == 2);
}

}  // namespace
}  // namespace tools
