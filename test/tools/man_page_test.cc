// The man pages rendered from the command-line specs: groff formats each without a
// warning, and the formatted page holds every command and the options it takes.
#include "tools/man_page.h"

#include <catch2/catch.hpp>

#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"

namespace tools {
namespace {

TEST_CASE("roff escapes: hyphens, backslashes, a leading dot or quote") {
  CHECK(RoffEscape("--memory") == "\\-\\-memory");
  CHECK(RoffEscape("a\\b") == "a\\eb");
  CHECK(RoffEscape(".TH") == "\\&.TH");
  CHECK(RoffEscape("'x") == "\\&'x");
  CHECK(RoffEscape("a.b") == "a.b");
}

TEST_CASE("each man page formats without warnings and documents every command") {
  testutil::TempDir dir;
  for (const ProgramSpec* program : AllProgramSpecs()) {
    INFO(program->name);
    const std::string page = dir.File(program->name + ".1");
    testutil::WriteFile(page, ManPage(*program));
    // -ww: every warning; -rLL=200n: wide lines, so that no sentence is broken; -P-cbou:
    // plain text, no overstriking for bold.
    testutil::ProcessResult r = testutil::RunProcess(
        {"/usr/bin/groff", "-man", "-Tutf8", "-ww", "-rLL=200n", "-P-cbou", page}, {},
        dir.File("groff"));
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    // What a reader sees (groff writes U+2010 for a hyphen in some fonts: compare words).
    for (const CommandSpec& c : program->commands) {
      CHECK_THAT(r.out, Catch::Contains(c.summary.substr(0, 30)));
      for (const CommandOption& o : c.options) {
        CHECK_THAT(r.out, Catch::Contains(o.name));
      }
    }
    CHECK_THAT(r.out, Catch::Contains("EXIT STATUS"));
  }
}

}  // namespace
}  // namespace tools
