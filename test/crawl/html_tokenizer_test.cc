#include "crawl/html_tokenizer.h"

#include <catch2/catch.hpp>

namespace crawl {
namespace {

// Records the tokens as text: <name a="v">, </name>, and character data in [].
class Recorder final : public HtmlTokenSink {
 public:
  bool WantsAttributes(std::string_view) override { return true; }
  void StartTag(std::string_view name, const std::vector<HtmlAttribute>& attrs) override {
    out += "<" + std::string(name);
    for (const HtmlAttribute& a : attrs) out += " " + a.name + "=\"" + a.value + "\"";
    out += ">";
  }
  void EndTag(std::string_view name) override { out += "</" + std::string(name) + ">"; }
  bool WantsText() override { return true; }
  void Text(std::string_view text) override { out += "[" + std::string(text) + "]"; }
  std::string out;
};

std::string Tokens(std::string_view html) {
  Recorder r;
  TokenizeHtml(html, r);
  return r.out;
}

TEST_CASE("tags, attributes and text", "[tokenizer]") {
  CHECK(Tokens("<P CLASS=x id='y' Title=\"z\" hidden>a&amp;b</P>") ==
        "<p class=\"x\" id=\"y\" title=\"z\" hidden=\"\">[a&b]</p>");
  CHECK(Tokens("<a href=1 href=2 HREF=3>") == "<a href=\"1\">");
  CHECK(Tokens("<br/><img src=a/>") == "<br><img src=\"a/\">");
  CHECK(Tokens("<a b='1'c=2>") == "<a b=\"1\" c=\"2\">");
  CHECK(Tokens("</p class=x>") == "</p>");
  CHECK(Tokens("a<b") == "[a]");  // a tag cut off by the end is dropped
  CHECK(Tokens("a < b </ c>d") == "[a ][<][ b ][d]");  // "</ c>" is a bogus comment
  CHECK(Tokens("x<") == "[x][<]");
  CHECK(Tokens("x\r\ny\rz") == "[x\ny\nz]");
}

TEST_CASE("comments, doctypes, bogus comments and CDATA", "[tokenizer]") {
  CHECK(Tokens("<!DOCTYPE html><!-- <p> -->a<!-->b<!--->c<?x>d</ x>e") == "[a][b][c][d][e]");
  CHECK(Tokens("<![CDATA[x]]>y") == "[y]");  // a bogus comment outside svg and math
  CHECK(Tokens("<svg><![CDATA[<p>]]></svg>") == "<svg>[<p>]</svg>");
}

TEST_CASE("raw text, RCDATA and script data", "[tokenizer]") {
  CHECK(Tokens("<style><p>&amp;</style>") == "<style>[<p>&amp;]</style>");
  CHECK(Tokens("<title><p>&amp;</title>") == "<title>[<p>&]</title>");
  CHECK(Tokens("<script>a</scriptx></script>") == "<script>[a</scriptx>]</script>");
  CHECK(Tokens("<script><!--<script></script>--></script>") ==
        "<script>[<!--<script></script>-->]</script>");
  CHECK(Tokens("<svg><style><p></style></svg>") == "<svg><style><p></style></svg>");
  CHECK(Tokens("<plaintext></plaintext>") == "<plaintext>[</plaintext>]");
}

}  // namespace
}  // namespace crawl
