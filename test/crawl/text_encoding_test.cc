#include "crawl/text_encoding.h"

#include <catch2/catch.hpp>
#include <string>

namespace crawl {
namespace {

std::string Decode(const char* label, std::string_view bytes) {
  const Encoding* e = EncodingForLabel(label);
  REQUIRE(e != nullptr);
  return DecodeToUtf8(*e, bytes);
}

TEST_CASE("encodings are found by the standard's labels", "[charset]") {
  const std::pair<const char*, const char*> cases[] = {
      {"utf-8", "UTF-8"},           {" UTF8\t", "UTF-8"},          {"latin1", "windows-1252"},
      {"ISO-8859-1", "windows-1252"}, {"us-ascii", "windows-1252"}, {"Shift_JIS", "Shift_JIS"},
      {"sjis", "Shift_JIS"},        {"windows-31j", "Shift_JIS"},  {"x-euc-jp", "EUC-JP"},
      {"gb2312", "GBK"},            {"GBK", "GBK"},                {"cp1251", "windows-1251"},
      {"utf-16", "UTF-16LE"},       {"unicodefffe", "UTF-16BE"},   {"iso-2022-kr", "replacement"},
      {"ks_c_5601-1987", "EUC-KR"}, {"koi8_r", "KOI8-R"},
      {"x-user-defined", "x-user-defined"}};
  for (const auto& [label, name] : cases) {
    INFO(label);
    const Encoding* e = EncodingForLabel(label);
    REQUIRE(e != nullptr);
    CHECK(e->name == name);
  }
  for (const char* bad : {"", "utf-7", "latin-1", "shift jis", "utf-8;", "utf\xC2\xA0-8"}) {
    INFO(bad);
    CHECK(EncodingForLabel(bad) == nullptr);
  }
}

// The test pages' bytes are written out here, not made with iconv: the decoder is
// checked against text known in each encoding.
TEST_CASE("legacy encodings decode to UTF-8", "[charset]") {
  CHECK(Decode("shift_jis", "\x93\xFA\x96\x7B/\x95\x5C") == "日本/表");  // 0x5C trail byte
  CHECK(Decode("shift_jis", "a\\b") == "a\\b");  // ASCII 0x5C is a backslash, not a yen
  CHECK(Decode("euc-jp", "\xC6\xFC\xCB\xDC") == "日本");
  CHECK(Decode("gbk", "\xD6\xD0\xCE\xC4") == "中文");
  CHECK(Decode("gb18030", "\x81\x30\x81\x30") == "\xC2\x80");  // a four-byte sequence
  CHECK(Decode("windows-1251", "\xCF\xF0\xE8\xE2\xE5\xF2") == "Привет");
  CHECK(Decode("iso-8859-1", "caf\xE9 \x80") == "café €");  // ISO-8859-1 is windows-1252
  CHECK(Decode("euc-kr", "\xC7\xD1\xB1\xDB") == "한글");
  CHECK(Decode("big5", "\xA4\xA4\xA4\xE5") == "中文");
  CHECK(Decode("iso-2022-jp", "\x1B$B\x46\x7C\x4B\x5C\x1B(Ba") == "日本a");
  CHECK(Decode("koi8-r", "\xF0\xD2\xC9") == "При");
  CHECK(Decode("utf-16le", std::string("a\0\xE9\0\xFF\xFE", 6)) == "aé\xEF\xBB\xBF");
  CHECK(Decode("utf-16be", std::string("\0a\x65\xE5", 4)) == "a日");
  CHECK(Decode("x-user-defined", "a\x80\xFF") == "a\xEF\x9E\x80\xEF\x9F\xBF");
  CHECK(Decode("iso-2022-kr", "anything") == "\xEF\xBF\xBD");
  CHECK(Decode("utf-8", "caf\xC3\xA9\xFF") == "caf\xC3\xA9\xFF");  // left to the tokenizer
}

TEST_CASE("bytes that do not decode become U+FFFD, text after them is kept", "[charset]") {
  const std::string kFffd = "\xEF\xBF\xBD";
  CHECK(Decode("shift_jis", "a\xFD" "b") == "a" + kFffd + "b");
  CHECK(Decode("shift_jis", "a\x93") == "a" + kFffd);  // cut off by the end
  CHECK(Decode("euc-jp", "\xC6" "a") == kFffd + "a");  // a bad trail byte is read again
  CHECK(Decode("windows-1253", "\xAA" "b") == kFffd + "b");
  // Unassigned 0x80-0x9F of a single-byte encoding are C1 controls, as in the standard.
  CHECK(Decode("windows-1252", "\x81\x8D") == "\xC2\x81\xC2\x8D");
  // A lone surrogate costs one code unit; the rest stays aligned.
  CHECK(Decode("utf-16le", std::string("\x00\xD8" "a\0", 4)) == kFffd + "a");
  CHECK(Decode("utf-16be", std::string("\0a\0", 3)) == "a" + kFffd);
}

}  // namespace
}  // namespace crawl
