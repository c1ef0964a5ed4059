// The README's first command (scripts/run-example.sh) past its set-up: the crawl of the
// Boost documentation on loopback, three cycles into a 3-writer db and a single-machine
// db, which must come out identical, then the best pages of a fetch list. The set-up
// (packages, build) is the test command's own; the crawl runs on this build's tools.
// Needs root (a network namespace) and Debian's libboost1.74-doc, which the test
// command installs: without them it fails, naming what is missing.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>

#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"

namespace tools {
namespace {

TEST_CASE("run-example.sh crawls the bundled site to identical dbs and lists the best pages",
          "[crawl][root]") {
  REQUIRE(std::filesystem::is_directory("/usr/share/doc/libboost1.74-doc/doc/html"));
  testutil::TempDir tmp;
  const testutil::ProcessResult r =
      testutil::Subprocess::Start({"/usr/bin/unshare", "--net", "--", "/bin/bash",
                                   PROJECT_SOURCE_DIR "/scripts/run-example.sh", "--in-netns"},
                                  {"BUILD=" PROJECT_BINARY_DIR, "WORK=" + tmp.File("work")},
                                  tmp.File("run"))
          ->Wait(std::chrono::minutes(10));
  INFO(r.Describe() << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("== all four tables identical"));
  CHECK_THAT(r.out, Catch::Contains("== the first pages of a fetch list after rank"));
  // Three cycles, each of which fetched something.
  for (const char* cycle : {"\n1 ", "\n2 ", "\n3 "}) CHECK_THAT(r.out, Catch::Contains(cycle));
  const std::string top = r.out.substr(r.out.find("== the first pages"));
  CHECK_THAT(top, Catch::Contains("http://127.0.0.1:8000/"));
}

}  // namespace
}  // namespace tools
