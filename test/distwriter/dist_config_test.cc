#include "distwriter/dist_config.h"

#include <catch2/catch.hpp>

namespace distwriter {
namespace {

constexpr char kHead[] =
    "db = crawl\nwriters = 3\n"
    "[machine.a]\nlocation = /r/a\n[machine.b]\nlocation = /r/b\n[machine.c]\nlocation = /r/c\n"
    "[writer.0]\nmachine = a\n[writer.1]\nmachine = b\n";

std::string ErrorOf(const std::string& text) {
  auto d = DistConfig::Parse(text, "x.conf");
  if (d) return "";
  CHECK(d.error().IsInvalidArgument());
  return d.error().message();
}

}  // namespace

TEST_CASE("dist config: a writer section out of range names the writer index", "[distwriter]") {
  CHECK(ErrorOf(std::string(kHead) + "[writer.2]\nmachine = c\n").empty());
  for (const char* bad : {"[writer.3]\nmachine = c\n", "[writer.x]\nmachine = c\n",
                          "[writer.-1]\nmachine = c\n"}) {
    INFO(bad);
    const std::string e = ErrorOf(std::string(kHead) + bad);
    CHECK_THAT(e, Catch::Contains("x.conf:14: [writer.") &&
                      Catch::Contains("the writer index must be an integer in 0..2 (writers = 3)"));
    CHECK_THAT(e, !Catch::Contains("machine' must be"));
  }
  CHECK_THAT(ErrorOf(std::string(kHead)), Catch::Contains("no [writer.2] machine"));
}

}  // namespace distwriter
