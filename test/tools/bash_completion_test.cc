// The bash completion scripts rendered from the command-line specs, run by bash as
// bash-completion runs them: commands, a command's options, the values of options.
#include "tools/bash_completion.h"

#include <catch2/catch.hpp>

#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"

namespace tools {
namespace {

// What the completion of program offers for the command line `words`, the last word
// being completed: one word a line.
std::string Complete(const ProgramSpec& program, const std::string& words) {
  testutil::TempDir dir;
  const std::string script = dir.File("completion.bash");
  testutil::WriteFile(script, BashCompletion(program));
  std::string fn = "_" + program.name + "_complete";
  const std::string code = "source " + script + "; COMP_WORDS=(" + words +
                           "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); cd " + dir.path() + "; " +
                           fn + "; for w in \"${COMPREPLY[@]}\"; do printf '%s\\n' \"$w\"; done";
  testutil::ProcessResult r = testutil::RunProcess({"/bin/bash", "-c", code}, {}, dir.File("bash"));
  INFO(r.Describe());
  REQUIRE(r.exit_code == 0);
  return r.out;
}

TEST_CASE("completion of the commands") {
  const std::string all = Complete(WebdbSpec(), "webdb ''");
  for (const CommandSpec& c : WebdbSpec().commands) CHECK_THAT(all, Catch::Contains(c.name + "\n"));
  CHECK(Complete(WebdbSpec(), "webdb ap") == "apply\n");
  CHECK(Complete(WebdbSpec(), "webdb -q ver") == "verify\nversions\n");
  CHECK(Complete(DistwriterSpec(), "distwriter la") == "launch\n");
}

TEST_CASE("completion of a command's options, and of option values") {
  CHECK(Complete(WebdbSpec(), "webdb dump db --t") == "--table\n");
  CHECK(Complete(WebdbSpec(), "webdb stats db --q") == "--quick\n--quiet\n");
  // An option another command takes is not offered.
  CHECK(Complete(WebdbSpec(), "webdb stats db --to") == "");
  CHECK(Complete(WebdbSpec(), "webdb dump --config c.conf --table pagesBy") ==
        "pagesByURL\npagesByMD5\n");
  CHECK(Complete(WebdbSpec(), "webdb generate db --top 5 --by d") == "domain\n");
  CHECK(Complete(DistwriterSpec(), "distwriter config --config c --get w") == "writers\n");
  CHECK(Complete(WebdbSpec(), "webdb help ver") == "verify\nversions\n");
  CHECK(Complete(WebdbSpec(), "webdb calls w") == "warc\n");
}

TEST_CASE("completion of file operands and file options") {
  testutil::TempDir dir;
  const std::string words = "webdb apply " + dir.path() + "/db " + dir.path() + "/ca";
  testutil::WriteFile(dir.File("calls.jsonl"), "");
  CHECK(Complete(WebdbSpec(), words) == dir.File("calls.jsonl") + "\n");
  CHECK(Complete(WebdbSpec(), "webdb inject db s --filter " + dir.path() + "/c") ==
        dir.File("calls.jsonl") + "\n");
}

}  // namespace
}  // namespace tools
