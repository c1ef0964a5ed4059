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

namespace distwriter {
namespace {

constexpr char kThree[] =
    "db = crawl\nwriters = 3\n"
    "[machine.a]\nlocation = /r/a\n[machine.b]\nlocation = /r/b\n[machine.c]\nlocation = /r/c\n"
    "[writer.0]\nmachine = a\n[writer.1]\nmachine = b\n[writer.2]\nmachine = c\n";

}  // namespace

TEST_CASE("dist config: replicas = R gives w<i> the machines of writers i..i+R-1",
          "[distwriter]") {
  auto one = DistConfig::Parse(kThree, "x.conf");
  REQUIRE(one);
  CHECK(one->replicas == 1);
  CHECK(one->GroupMachines(2) == std::vector<std::string>{"c"});
  auto two = DistConfig::Parse(std::string("replicas = 2\n") + kThree, "x.conf");
  REQUIRE(two);
  CHECK(two->replicas == 2);
  CHECK(two->GroupMachines(0) == std::vector<std::string>{"a", "b"});
  CHECK(two->GroupMachines(1) == std::vector<std::string>{"b", "c"});
  CHECK(two->GroupMachines(2) == std::vector<std::string>{"c", "a"});
  auto three = DistConfig::Parse(std::string("replicas = 3\n") + kThree, "x.conf");
  REQUIRE(three);
  CHECK(three->GroupMachines(1) == std::vector<std::string>{"b", "c", "a"});
  // A config that declares a writer's group must declare it as derived.
  CHECK(DistConfig::Parse(std::string("replicas = 2\n") + kThree +
                              "[group.w1]\nmachines = b, c\n",
                          "x.conf"));
  CHECK_THAT(ErrorOf(std::string("replicas = 2\n") + kThree + "[group.w1]\nmachines = b\n"),
             Catch::Contains("group w1 is the distributed writer's: its machines must be b, c"));
}

TEST_CASE("dist config: replicas out of range, or two copies on one machine, name the line",
          "[distwriter]") {
  for (const char* bad : {"replicas = 0\n", "replicas = 4\n", "replicas = two\n"}) {
    CAPTURE(bad);
    CHECK_THAT(ErrorOf(bad + std::string(kThree)),
               Catch::Contains("x.conf:1: 'replicas' must be an integer in 1..3"));
  }
  const std::string shared =
      "replicas = 2\ndb = crawl\nwriters = 3\n"
      "[machine.a]\nlocation = /r/a\n[machine.b]\nlocation = /r/b\n"
      "[writer.0]\nmachine = a\n[writer.1]\nmachine = a\n[writer.2]\nmachine = b\n";
  CHECK_THAT(ErrorOf(shared), Catch::Contains("x.conf:1: replicas = 2: writers 0 and 1 both run "
                                              "on machine a"));
}

}  // namespace distwriter

namespace distwriter {

TEST_CASE("dist config: distwriter = names the binary launches start, absolute or by name",
          "[distwriter]") {
  auto none = DistConfig::Parse(kThree, "x.conf");
  REQUIRE(none);
  CHECK(none->distwriter_binary.empty());
  for (const char* given : {"/opt/webdb/bin/distwriter", "distwriter"}) {
    auto d = DistConfig::Parse(std::string("distwriter = ") + given + "\n" + kThree, "x.conf");
    REQUIRE(d);
    CHECK(d->distwriter_binary == given);
  }
  const std::string relative =
      ErrorOf(std::string("db = crawl\ndistwriter = bin/distwriter\n") + (kThree + 11));
  CHECK_THAT(relative, Catch::Contains("x.conf:2: distwriter = 'bin/distwriter': an absolute "
                                       "path or a command name"));
}

}  // namespace distwriter
