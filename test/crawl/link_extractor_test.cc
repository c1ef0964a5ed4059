#include "crawl/link_extractor.h"

#include <catch2/catch.hpp>

namespace crawl {
namespace {

constexpr const char* kPage = "http://a.example/dir/page.html";

std::vector<Outlink> Links(std::string_view html, LinkExtractorOptions options = {},
                           const UrlFilter* filter = nullptr) {
  return ExtractLinks(html, kPage, options, filter);
}

TEST_CASE("a, area, frame and iframe, resolved and normalized", "[links]") {
  auto links = Links(
      "<html><body><a href='x.html'>X</a><map><area href='/y' alt='Y area'></map>"
      "<iframe src='../z#frag'></iframe><a href='HTTP://B.example:80'>b</a>"
      "<a name=nohref>none</a><img src='img.png'></body></html>");
  std::vector<Outlink> want = {{"http://a.example/dir/x.html", "X"},
                               {"http://a.example/y", "Y area"},
                               {"http://a.example/z", ""},
                               {"http://b.example/", "b"}};
  CHECK(links == want);
  auto frames = Links("<frameset><frame src='f1.html'><frame src='f2.html'></frameset>");
  CHECK(frames == std::vector<Outlink>{{"http://a.example/dir/f1.html", ""},
                                       {"http://a.example/dir/f2.html", ""}});
}

TEST_CASE("base href", "[links]") {
  auto links = Links(
      "<head><base href='/other/'><base href='http://ignored.example/'></head>"
      "<a href='p'>p</a>");
  CHECK(links == std::vector<Outlink>{{"http://a.example/other/p", "p"}});
  auto absolute = Links("<base href='https://c.example/x/'><a href='../q'>q</a>");
  CHECK(absolute == std::vector<Outlink>{{"https://c.example/q", "q"}});
  auto no_href = Links("<base target=_top><a href='q'>q</a>");
  CHECK(no_href == std::vector<Outlink>{{"http://a.example/dir/q", "q"}});
}

TEST_CASE("only http and https targets", "[links]") {
  auto links = Links(
      "<a href='mailto:x@y'>m</a><a href='javascript:go()'>j</a><a href='ftp://f/'>f</a>"
      "<a href='https://s.example/'>s</a><a href='#top'>self</a><a href='http://[bad'>bad</a>");
  CHECK(links == std::vector<Outlink>{{"https://s.example/", "s"}, {kPage, "self"}});
}

TEST_CASE("nofollow", "[links]") {
  const char* rel = "<a href='a' rel='external NoFollow'>a</a><a href='b'>b</a>";
  CHECK(Links(rel) == std::vector<Outlink>{{"http://a.example/dir/b", "b"}});
  LinkExtractorOptions ignore;
  ignore.honour_nofollow = false;
  CHECK(Links(rel, ignore).size() == 2);
  const char* meta = "<meta name='ROBOTS' content='noindex, nofollow'><a href='a'>a</a>";
  CHECK(Links(meta).empty());
  CHECK(Links(meta, ignore).size() == 1);
  CHECK(Links("<meta name=robots content=none><a href='a'>a</a>").empty());
  CHECK(Links("<meta name=robots content=noindex><a href='a'>a</a>").size() == 1);
}

TEST_CASE("anchor text collapsed and capped, first occurrence wins", "[links]") {
  auto links = Links(
      "<a href='a'>  one\n\t<b>two</b>   three </a><a href='a'>again</a>"
      "<a href='./a#x'>same target</a><a href='b'>x&amp;y</a>");
  CHECK(links == std::vector<Outlink>{{"http://a.example/dir/a", "one two three"},
                                      {"http://a.example/dir/b", "x&y"}});
  std::string long_text(300, 'w');
  LinkExtractorOptions options;
  CHECK(Links("<a href=a>" + long_text + "</a>", options)[0].anchor.size() == 100);
  options.max_anchor_bytes = 7;
  CHECK(Links("<a href=a>ab\xc3\xa9\xc3\xa9\xc3\xa9</a>", options)[0].anchor == "ab\xc3\xa9\xc3\xa9");
  CHECK(CollapseAnchor("a  b", 2) == "a");
  CHECK(CollapseAnchor(" \n ", 10).empty());
}

TEST_CASE("at most max_outlinks distinct targets, after the filter", "[links]") {
  std::string html;
  for (int i = 0; i < 300; ++i) html += "<a href='p" + std::to_string(i % 150) + "'>l</a>";
  CHECK(Links(html).size() == 100);
  LinkExtractorOptions options;
  options.max_outlinks = 1000;
  CHECK(Links(html, options).size() == 150);
  auto filter = UrlFilter::Parse("-p1\n+.\n", "f");
  REQUIRE(filter);
  options.max_outlinks = 3;
  auto kept = Links(html, options, &*filter);
  CHECK(kept == std::vector<Outlink>{{"http://a.example/dir/p0", "l"},
                                     {"http://a.example/dir/p2", "l"},
                                     {"http://a.example/dir/p3", "l"}});
}

TEST_CASE("hostile HTML does not break the parser", "[links]") {
  CHECK(Links("").empty());
  CHECK(Links(std::string(10000, '<')).empty());
  std::string deep;
  for (int i = 0; i < 2000; ++i) deep += "<div>";
  deep += "<a href=deep>d</a>";
  CHECK(Links(deep).size() == 1);
  CHECK(Links(std::string("<a href='a\0b'>z</a>", 19)).size() == 1);
}

}  // namespace
}  // namespace crawl
