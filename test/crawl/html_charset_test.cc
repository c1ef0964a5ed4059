#include "crawl/html_charset.h"

#include <catch2/catch.hpp>
#include <string>

namespace crawl {
namespace {

using Source = HtmlText::Source;

// The encoding DecodeHtml settles on, and from where.
std::pair<std::string, Source> Sniff(std::string_view body, std::string_view content_type = "") {
  std::string scratch;
  HtmlText t = DecodeHtml(body, content_type, &scratch);
  return {std::string(t.encoding->name), t.source};
}

std::string Prescan(std::string_view head) {
  const Encoding* e = PrescanMetaCharset(head);
  return e == nullptr ? "none" : std::string(e->name);
}

TEST_CASE("the meta prescan reads what the standard reads", "[charset]") {
  CHECK(Prescan("<meta charset=shift_jis>") == "Shift_JIS");
  CHECK(Prescan("<META CHARSET='EUC-JP'>") == "EUC-JP");
  CHECK(Prescan("<meta/charset=\"gbk\"/>") == "GBK");
  CHECK(Prescan("<html><head><meta name=x charset = windows-1251 >") == "windows-1251");
  CHECK(Prescan("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">") ==
        "windows-1252");
  CHECK(Prescan("<meta content='text/html;charset=\"koi8-r\"' http-equiv=content-type>") ==
        "KOI8-R");
  // content without http-equiv=content-type declares nothing
  CHECK(Prescan("<meta content=\"text/html; charset=koi8-r\">") == "none");
  // a UTF-16 label in a meta means UTF-8 (the bytes read it were ASCII); x-user-defined
  // means windows-1252
  CHECK(Prescan("<meta charset=utf-16le>") == "UTF-8");
  CHECK(Prescan("<meta charset=x-user-defined>") == "windows-1252");
  // the first attribute of a name counts; an unknown label declares nothing
  CHECK(Prescan("<meta charset=euc-kr charset=gbk>") == "EUC-KR");
  CHECK(Prescan("<meta charset=bogus><meta charset=big5>") == "Big5");
  // comments, other tags' attributes, and markup declarations hide what looks like one
  CHECK(Prescan("<!-- <meta charset=gbk> --><meta charset=big5>") == "Big5");
  CHECK(Prescan("<!--><meta charset=gbk>") == "GBK");
  CHECK(Prescan("<div title='<meta charset=gbk>'><meta charset=big5>") == "Big5");
  CHECK(Prescan("<!DOCTYPE html><?xml encoding=gbk?><meta charset=big5>") == "Big5");
  CHECK(Prescan("<metal charset=gbk>") == "none");
  CHECK(Prescan("<meta charset=gbk") == "none");  // cut off: no answer
  CHECK(Prescan("<!-- unclosed <meta charset=gbk>") == "none");
  CHECK(Prescan(std::string(1020, ' ') + "<meta charset=gbk>") == "none");  // past 1024 bytes
  CHECK(Prescan(std::string(1000, ' ') + "<meta charset=gbk>") == "GBK");
}

TEST_CASE("a Content-Type's charset parameter", "[charset]") {
  auto name = [](std::string_view ct) {
    const Encoding* e = ContentTypeCharset(ct);
    return e == nullptr ? std::string("none") : std::string(e->name);
  };
  CHECK(name("text/html; charset=Shift_JIS") == "Shift_JIS");
  CHECK(name("text/html;charset=\"euc-jp\"") == "EUC-JP");
  CHECK(name("text/html; q=1; CHARSET = gbk ") == "GBK");
  CHECK(name("text/html") == "none");
  CHECK(name("text/html; charset=") == "none");
  CHECK(name("text/html; charset=unknown-thing") == "none");
  CHECK(name("text/html; charsets=gbk") == "none");
}

TEST_CASE("encoding sniffing: BOM, then HTTP, then meta, then UTF-8, then windows-1252",
          "[charset]") {
  const std::string meta_gbk = "<meta charset=gbk>\xD6\xD0";
  CHECK(Sniff("\xEF\xBB\xBF" + meta_gbk, "text/html; charset=big5") ==
        std::pair<std::string, Source>{"UTF-8", Source::kBom});
  CHECK(Sniff("\xFF\xFE<\0", "text/html; charset=big5") ==
        std::pair<std::string, Source>{"UTF-16LE", Source::kBom});
  CHECK(Sniff("\xFE\xFF\0<") == std::pair<std::string, Source>{"UTF-16BE", Source::kBom});
  CHECK(Sniff(meta_gbk, "text/html; charset=big5") ==
        std::pair<std::string, Source>{"Big5", Source::kHttp});
  CHECK(Sniff(meta_gbk, "text/html; charset=nonsense") ==
        std::pair<std::string, Source>{"GBK", Source::kMeta});
  CHECK(Sniff("<p>caf\xC3\xA9</p>") == std::pair<std::string, Source>{"UTF-8", Source::kDetected});
  CHECK(Sniff("<p>caf\xE9</p>") ==
        std::pair<std::string, Source>{"windows-1252", Source::kDefault});
}

TEST_CASE("the decoded page: a view of the body when nothing needs decoding", "[charset]") {
  std::string scratch;
  const std::string ascii = "<meta charset=shift_jis><a href=/x>x</a>";
  HtmlText t = DecodeHtml(ascii, "", &scratch);
  CHECK(t.text.data() == ascii.data());
  const std::string sjis = "<meta charset=shift_jis><a href=/\x93\xFA>x</a>";
  t = DecodeHtml(sjis, "", &scratch);
  CHECK(t.text == "<meta charset=shift_jis><a href=/日>x</a>");
  const std::string bom = "\xEF\xBB\xBF<p>";
  CHECK(DecodeHtml(bom, "", &scratch).text == "<p>");
}

}  // namespace
}  // namespace crawl
