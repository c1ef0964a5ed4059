#include "crawl/link_extractor.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test/util/gumbo_links.h"

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

std::string Describe(const std::vector<Outlink>& links) {
  std::string out;
  for (const Outlink& l : links) out += l.url + " [" + l.anchor + "]\n";
  return out;
}

// What gumbo finds: with the default options, and with every link (no cap) and long
// anchors, honouring nofollow or not.
void CheckAgreesWithGumbo(std::string_view html, std::string_view page_url) {
  for (int variant : {0, 1, 2}) {
    LinkExtractorOptions options;
    bool honour = variant != 2;
    if (variant > 0) {
      options.max_outlinks = 1 << 20;
      options.max_anchor_bytes = 1 << 16;
      options.honour_nofollow = honour;
    }
    auto want = testutil::ExtractLinksWithGumbo(html, page_url, options, nullptr);
    auto got = ExtractLinks(html, page_url, options, nullptr);
    INFO("page " << page_url << ", honour nofollow " << honour << "\n"
                 << html.substr(0, 2000) << "\ngumbo:\n"
                 << Describe(want) << "tokenizer:\n"
                 << Describe(got));
    CHECK(got == want);
  }
}

TEST_CASE("the same links as gumbo on tricky HTML", "[links]") {
  const std::vector<std::string> cases = {
      // comments, bogus comments, DOCTYPE, processing instructions
      "<!DOCTYPE html><!-- <a href=c1>no</a> --><a href=x1>yes</a>",
      "<!--><a href=c2>after an abrupt comment</a>",
      "<!---><a href=c3>after an abrupt comment</a>",
      "<!-- a -- b --!><a href=c4>after --!></a><!-- --->x<a href=c5>y</a>",
      "<!---- x ----><a href=c6>z</a><!-- unclosed <a href=no>",
      "<?php echo '<a href=pi>' ?><a href=c7>after a PI</a>",
      "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\" \">\"><a href=c8>t</a>",
      "</ a href=bogus><a href=c9>t</a></>",
      // CDATA: a bogus comment in HTML, text in foreign content
      "<![CDATA[<a href=cd1>no</a>]]><a href=cd2>yes</a>",
      "<svg><![CDATA[<a href=cd3>x]]><a href=cd4>in svg</a></svg><a href=cd5>after</a>",
      "<a href=cd6>a<svg><![CDATA[ text ]]></svg>b</a>",
      "<math><p><a href=cd7>broke out</a><![CDATA[x]]>",
      // script, style and the other raw text elements
      "<script>document.write('<a href=s1>')</script><a href=s2>after script</a>",
      "<script><!-- <script> </script> <a href=s3> --></script><a href=s4>t</a>",
      "<script><!--<a href=s5>--></script><a href=s6>t</a>",
      "<script><!--></script><a href=s7>t</a>",
      "<SCRIPT>x</SCRIPT ><a href=s8>t</a><script>unclosed <a href=no>",
      "<style>a { } </style foo=bar><a href=st1>t</a><style>/* <a href=no> */</style>",
      "<title><a href=t1>in title</a> &amp;</title><a href=t2>t</a>",
      "<textarea><a href=ta>x</a></textarea><a href=ta2>t</a>",
      "<xmp><a href=xm>x</a></xmp><noembed><a href=ne></noembed><noframes><a href=nf></noframes>",
      "<iframe src=if1><a href=if2>inside iframe</a></iframe><a href=if3>t</a>",
      "<noscript><a href=ns>in noscript</a></noscript>",
      "<a href=pt1>x</a><plaintext><a href=pt2>not a tag</a>",
      "<a href=sc>a<script>s</script>b<style>c</style>d</a>",
      // attributes
      "<a href=unquoted>u</a><a href='single'>s</a><a href=\"double\">d</a>",
      "<A HREF=UPPER>U</A><a hReF=Mixed REL=NOFOLLOW>m</a>",
      "<a href = spaced >s</a><a\nhref\n=\n'nl'\n>n</a><a\thref=tab>t</a>",
      "<a href=x1 href=x2>first wins</a><a title=t href=x3 href=x4>x</a>",
      "<a href=/slash/>s</a><a href=a/b/ >b</a><a/href=weird>w</a><a href=q\"x>q</a>",
      "<a href='a'href=\"b\">no space</a><a href=>empty</a><a href>bare</a>",
      "<a =href=eq>e</a><a href=\"x\" / >sc</a><a href=\"unterminated>",
      "<a href=\"with\nnewline\ttab\">n</a><a href=' spaced '>s</a>",
      "<a href='a\rb'>cr</a><a href=\"a\r\nb\">crlf</a>",
      // character references
      "<a href='?a=1&amp;b=2'>amp</a><a href='?a=1&b=2'>bare</a>",
      "<a href='?x=1&copy=2'>copy=</a><a href='?x=1&copy;=2'>copy;</a><a href='&copyx'>cx</a>",
      "<a href='&#x2F;hex&#47;dec'>num</a><a href='&#0;&#xD800;&#x110000;&#128;'>bad</a>",
      "<a href='&notit;'>notit</a><a href='&notin;'>notin</a><a href='&amp'>amp</a>",
      "<a href=e1>&lt;tag&gt; &amp;&nbsp;&copy &notit; &#169;&#xa9 &#x80;&#150; &bogus; & x</a>",
      "<a href=e2>&CounterClockwiseContourIntegral;&Aacute&aacute;&#X41;&#;&#x;</a>",
      "<a href=e3>&amp</a><a href=e4>&ampx &lt3 &gtx</a>",
      // text and nesting
      "<a href=n1>one <b>bold</b> <i>two</i></a> out <a href=n2>  spaced\n\t out </a>",
      "<a href=n3>first<a href=n4>second</a>third</a>",
      "<a href=n5>x</a><a href=n5>dup</a><a href=N6>case</a><a href=n6>lower</a>",
      "<p><a href=n7>para</a></p><div><a href=n8><div>block</div></a></div>",
      "<table><tr><td><a href=tb1>cell</a></td></tr></table><ul><li><a href=li>i</a></ul>",
      std::string("<a href=nul>a\0b</a><a href='n\0l'>\0</a><b\0>x</b\0><a h\0=1 href=z>z</a>", 68),
      "<a href=utf>caf\xc3\xa9 \xe2\x82\xac</a><a href='caf\xc3\xa9'>u</a>",
      // base, meta robots, area, frames
      "<a href=b1>before base</a><base href='/other/'><a href=b2>after</a><base href=/no/>",
      "<base target=_top><base href=sub/><a href=b3>x</a>",
      "<body><p><base href='http://B.example/x/'><a href=b4>base in body</a>",
      "<meta name=ROBOTS content='index, NOFOLLOW'><a href=m1>x</a>",
      "<meta name=robots content=none><a href=m2>x</a>",
      "<meta name=description content=nofollow><a href=m3>x</a>",
      "<map><area href=ar1 alt='the alt'><area nohref alt=x><area href=ar2></map>",
      "<frameset><frame src=fr1><frame src=fr2></frameset>",
      "<a href='javascript:void(0)'>js</a><a href='mailto:x@y'>m</a><a href='#top'>self</a>",
      "<a href='//other.example/p'>proto-relative</a><a href='HTTP://X.EXAMPLE:80/'>abs</a>",
      "<a href=tail>unclosed at the end",
      "<a href=eof",
      "<a href='eof",
      "<",
      "</",
      "<a href=x>&",
  };
  for (const std::string& html : cases) CheckAgreesWithGumbo(html, kPage);
}

// The one difference: gumbo reads control characters (other than white space and NUL)
// and noncharacters as U+FFFD; the standard keeps them (a parse error only).
TEST_CASE("control characters are kept, as the standard says", "[links]") {
  const std::string html = "<a href='a\x01" "b'>c\x0b\x7f</a>";
  auto links = Links(html);
  REQUIRE(links.size() == 1);
  CHECK(links[0].url == "http://a.example/dir/a%01b");
  CHECK(links[0].anchor == "c\x0b\x7f");
  auto gumbo = testutil::ExtractLinksWithGumbo(html, kPage, {}, nullptr);
  REQUIRE(gumbo.size() == 1);
  CHECK(gumbo[0].url == "http://a.example/dir/a%EF%BF%BDb");
}

// Every HTML page of Debian's libboost1.74-doc (scripts/setup.sh installs it).
TEST_CASE("the same links as gumbo on every page of the Boost documentation", "[links][slow]") {
  const std::filesystem::path root = "/usr/share/doc/libboost1.74-doc";
  REQUIRE(std::filesystem::is_directory(root));  // installed by scripts/setup.sh
  size_t pages = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".html" && ext != ".htm")) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream html;
    html << in.rdbuf();
    std::string url = "http://127.0.0.1:8000/" +
                      std::filesystem::relative(entry.path(), root).generic_string();
    CheckAgreesWithGumbo(html.str(), url);
    ++pages;
  }
  CHECK(pages > 3000);
}

}  // namespace
}  // namespace crawl
