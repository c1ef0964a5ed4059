// Fuzzes the decoding of HTML pages from their character encoding (crawl/html_charset.h,
// crawl/text_encoding.h). The input is a Content-Type value, a NUL and a page body.
// Properties: no crash; the prescan never answers UTF-16 or x-user-defined (the
// standard maps them to UTF-8 and windows-1252); a page is decoded to valid UTF-8 unless
// its encoding is UTF-8 (then it is the body, minus a BOM); ASCII text in an encoding
// that reads ASCII as ASCII is returned as it is; the body in every encoding of a few
// labels decodes to valid UTF-8.
#include <cstdint>
#include <string>

#include "crawl/html_charset.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = fuzzutil::SplitAtNul(fuzzutil::AsView(data, size), 2);
  const std::string_view content_type = parts[0];
  const std::string_view body = parts[1];

  if (const crawl::Encoding* e = crawl::PrescanMetaCharset(body)) {
    FUZZ_CHECK_MSG(e->kind != crawl::Encoding::Kind::kUtf16 &&
                       e->kind != crawl::Encoding::Kind::kUserDefined,
                   std::string(e->name));
  }
  std::string scratch;
  const crawl::HtmlText html = crawl::DecodeHtml(body, content_type, &scratch);
  if (html.encoding->kind == crawl::Encoding::Kind::kUtf8) {
    FUZZ_CHECK(html.text == body || html.text == body.substr(3));
  } else {
    FUZZ_CHECK_MSG(fuzzutil::ValidUtf8(html.text), std::string(html.encoding->name));
  }

  bool ascii = true;
  for (char c : body) ascii = ascii && static_cast<unsigned char>(c) < 0x80 && c != '\x1b';
  for (const char* label : {"shift_jis", "euc-jp", "gbk", "gb18030", "big5", "euc-kr",
                            "iso-2022-jp", "windows-1251", "latin1", "utf-16le", "utf-16be",
                            "x-user-defined", "iso-2022-kr"}) {
    const crawl::Encoding* e = crawl::EncodingForLabel(label);
    FUZZ_CHECK_MSG(e != nullptr, label);
    const std::string decoded = crawl::DecodeToUtf8(*e, body);
    FUZZ_CHECK_MSG(fuzzutil::ValidUtf8(decoded), label);
    if (ascii && e->AsciiCompatible() && e->kind != crawl::Encoding::Kind::kReplacement) {
      FUZZ_CHECK_MSG(decoded == body, label);
    }
  }
  return 0;
}
