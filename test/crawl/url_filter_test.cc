#include "crawl/url_filter.h"

#include <catch2/catch.hpp>

namespace crawl {
namespace {

TEST_CASE("an empty filter accepts everything", "[filter]") {
  UrlFilter filter;
  CHECK(filter.Accepts("http://a.example/"));
  auto parsed = UrlFilter::Parse("# only comments\n\n", "f");
  REQUIRE(parsed);
  CHECK(parsed->num_rules() == 0);
  CHECK(parsed->Accepts("http://a.example/"));
}

TEST_CASE("first matching rule wins, no match rejects", "[filter]") {
  auto filter = UrlFilter::Parse(
      "# Nutch style\n"
      "-\\.(gif|jpg|png)$\n"
      "-[?*!@=]\n"
      "+^https?://([a-z0-9-]+\\.)*example\\.com/\r\n",
      "regex-urlfilter.txt");
  REQUIRE(filter);
  CHECK(filter->num_rules() == 3);
  CHECK(filter->Accepts("http://www.example.com/a.html"));
  CHECK(filter->Accepts("https://example.com/"));
  CHECK_FALSE(filter->Accepts("http://www.example.com/a.png"));
  CHECK_FALSE(filter->Accepts("http://www.example.com/a?b=1"));
  CHECK_FALSE(filter->Accepts("http://other.org/"));
}

TEST_CASE("accept before reject", "[filter]") {
  auto filter = UrlFilter::Parse("+/keep/\n-.\n", "f");
  REQUIRE(filter);
  CHECK(filter->Accepts("http://a/keep/x"));
  CHECK_FALSE(filter->Accepts("http://a/other"));
}

// Issue 36, item 18: a BOM made the first rule "not a rule"; a lone CR merged two rules.
TEST_CASE("rules files: a BOM, and lines ending in a lone CR", "[filter]") {
  auto filter = UrlFilter::Parse("\xEF\xBB\xBF-/private/\r+^http://a\\.example/\r", "f");
  REQUIRE(filter);
  CHECK(filter->num_rules() == 2);
  CHECK(filter->Accepts("http://a.example/x"));
  CHECK_FALSE(filter->Accepts("http://a.example/private/"));
  auto bad = UrlFilter::Parse("+a\r\rfoo\r", "rules.txt");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message(), Catch::StartsWith("rules.txt:3: "));
}

TEST_CASE("bad rules name file and line", "[filter]") {
  auto no_sign = UrlFilter::Parse("+a\nfoo\n", "rules.txt");
  REQUIRE_FALSE(no_sign);
  CHECK(no_sign.error().IsInvalidArgument());
  CHECK(no_sign.error().message().rfind("rules.txt:2: ", 0) == 0);
  auto bad_regex = UrlFilter::Parse("\n-(unclosed\n", "rules.txt");
  REQUIRE_FALSE(bad_regex);
  CHECK(bad_regex.error().message().rfind("rules.txt:2: bad regular expression", 0) == 0);
}

}  // namespace
}  // namespace crawl
