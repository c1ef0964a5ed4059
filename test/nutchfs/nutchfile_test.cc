#include "nutchfs/nutchfile.h"

#include <catch2/catch.hpp>

using nutchfs::NutchFile;
using nutchfs::ValidateComponent;
using nutchfs::ValidateName;

TEST_CASE("valid names resolve below the group", "[nutchfs]") {
  auto file = NutchFile::Make("crawl", "part0", "round-3/edits/from-1");
  REQUIRE(file);
  CHECK(file->RelativePath() == "crawl/part0/round-3/edits/from-1");
  CHECK(file->BaseName() == "from-1");
  CHECK(file->DirName() == "round-3/edits");
  CHECK(NutchFile::Make("crawl", "g", "top")->DirName().empty());
  CHECK(ValidateName("a.b/c..d/e-f_g h/\xc3\xa9t\xc3\xa9").ok());
  CHECK(ValidateName(std::string(255, 'x')).ok());
  CHECK(ValidateName(std::string(255, 'x') + "/" + std::string(255, 'y')).ok());
}

TEST_CASE("names that could escape the root are rejected", "[nutchfs]") {
  struct Case {
    std::string name;
    std::string why;
  };
  const std::vector<Case> cases = {
      {"", "is empty"},
      {"/etc/passwd", "absolute"},
      {"..", "leave its directory"},
      {"a/../b", "leave its directory"},
      {"a/./b", "leave its directory"},
      {".", "leave its directory"},
      {"a//b", "empty"},
      {"a/", "empty"},
      {std::string("a\0b", 3), "control"},
      {"a\nb", "control"},
      {"a\x7f", "control"},
      {"dir/\x01", "control"},
      {std::string(256, 'x'), "256 bytes"},
      {"ok/" + std::string(300, 'y'), "300 bytes"},
      {".tmp.a", "reserved"},
      {"a/.hidden", "reserved"},
  };
  for (const Case& c : cases) {
    INFO("name " << c.name);
    nutchfs::Status s = ValidateName(c.name);
    REQUIRE(s.IsInvalidArgument());
    CHECK_THAT(s.message(), Catch::Contains(c.why));
  }
}

TEST_CASE("db and group names follow the component rules", "[nutchfs]") {
  CHECK(ValidateComponent("db name", "crawl").ok());
  for (std::string bad :
       {std::string(), std::string("a/b"), std::string(".."), std::string("."), std::string(".x"),
        std::string("a\tb"), std::string(256, 'z'), std::string("x\0y", 3)}) {
    INFO("component " << bad);
    CHECK(ValidateComponent("db name", bad).IsInvalidArgument());
    CHECK_FALSE(NutchFile::Make(bad, "g", "n"));
    CHECK_FALSE(NutchFile::Make("db", bad, "n"));
  }
  auto s = NutchFile::Make("db", "a/b", "n").error();
  CHECK_THAT(s.message(), Catch::Contains("share group name"));
  CHECK_THAT(NutchFile::Make("", "g", "n").error().message(), Catch::Contains("db name"));
}
