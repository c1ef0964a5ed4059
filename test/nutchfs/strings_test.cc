// The shared text helpers: trimming with the default and other character sets, and ASCII
// case-insensitive comparison (bytes above 0x7f compare as they are).
#include "nutchfs/strings.h"

#include <catch2/catch.hpp>

#include "nutchfs/clock.h"

using nutchfs::EqualsNoCase;
using nutchfs::Trim;

TEST_CASE("Trim removes the given characters at both ends only") {
  CHECK(Trim(" \tkey = value\t ") == "key = value");
  CHECK(Trim("  ") == "");
  CHECK(Trim("") == "");
  CHECK(Trim("a b") == "a b");
  CHECK(Trim("\r\nline\r\n") == "\r\nline\r\n");
  CHECK(Trim("\r\nline \r\n", " \t\r\n") == "line");
  CHECK(Trim("xxaxx", "x") == "a");
}

TEST_CASE("EqualsNoCase ignores the case of ASCII letters only") {
  CHECK(EqualsNoCase("Content-Type", "content-TYPE"));
  CHECK_FALSE(EqualsNoCase("Content-Type", "Content-Typ"));
  CHECK_FALSE(EqualsNoCase("a", "b"));
  CHECK(EqualsNoCase("", ""));
  CHECK_FALSE(EqualsNoCase("\xc3\xa9", "\xc3\x89"));  // é and É: not ASCII
  CHECK_FALSE(EqualsNoCase("[", "{"));                // 0x5b and 0x7b differ by 0x20 too
}

TEST_CASE("NowMs is milliseconds since the epoch") {
  const int64_t now = nutchfs::NowMs();
  CHECK(now > int64_t{1700000000000});  // after November 2023
  CHECK(now < int64_t{4102444800000});  // before 2100
}
