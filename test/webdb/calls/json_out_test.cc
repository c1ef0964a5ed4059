#include "webdb/calls/json_out.h"

#include <simdjson.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "webdb/calls/call_parser.h"

namespace webdb {
namespace {

std::string Json(std::string_view bytes) {
  std::string out;
  AppendJsonString(bytes, &out);
  return out;
}

std::string FloatText(float f) {
  std::string out;
  AppendJsonFloat(f, &out);
  return out;
}

// Parses the JSON text of a string back into its bytes; fails the test if it is not
// valid JSON.
std::string DecodeJsonString(const std::string& json) {
  simdjson::dom::parser parser;
  std::string_view s;
  auto error = parser.parse(json).get_string().get(s);
  INFO(json);
  REQUIRE(error == simdjson::SUCCESS);
  return std::string(s);
}

// Reads a printed float back the way call files are read: as a page's score.
float ParseBack(const std::string& text) {
  CallParser parser;
  std::string line = R"({"op":"addPage","page":{"url":"u","score":)" + text + "}}";
  line.append(CallParser::kPadding, ' ');
  Call call;
  Status s = parser.Parse(std::string_view(line).substr(0, line.size() - CallParser::kPadding),
                          &call);
  INFO(text << ": " << s.ToString());
  REQUIRE(s.ok());
  return call.page.score;
}

void CheckRoundTrip(float f) {
  float back = ParseBack(FloatText(f));
  INFO(FloatText(f));
  CHECK(std::bit_cast<uint32_t>(back) == std::bit_cast<uint32_t>(f));
}

TEST_CASE("page JSON has the documented fields in order") {
  Page p;
  p.url = "http://a.example/x?q=\"1\"";
  p.md5 = *ParseMd5Hex("0123456789abcdef0123456789abcdef");
  p.next_fetch = -5;
  p.retries = 255;
  p.fetch_interval = 7;
  p.num_outlinks = 2147483647;
  p.score = 1.5f;
  p.next_score = 0.1f;
  std::string out;
  AppendPageJson(p, &out);
  CHECK(out ==
        R"({"url":"http://a.example/x?q=\"1\"","md5":"0123456789abcdef0123456789abcdef",)"
        R"("nextFetch":-5,"retries":255,"fetchInterval":7,"numOutlinks":2147483647,)"
        R"("score":1.5,"nextScore":0.1})");
}

TEST_CASE("link JSON has the documented fields in order") {
  Link l;
  l.from = *ParseMd5Hex("ffffffffffffffffffffffffffffffff");
  l.url = "http://b/";
  l.domain_id = std::numeric_limits<int64_t>::min();
  l.anchor = std::string("a\0b", 3);
  l.target_has_outlink = true;
  std::string out;
  AppendLinkJson(l, &out);
  CHECK(out == R"({"from":"ffffffffffffffffffffffffffffffff","url":"http://b/",)"
               R"("domainID":-9223372036854775808,"anchor":"a\u0000b","targetHasOutlink":true})");
  l.target_has_outlink = false;
  out.clear();
  AppendLinkJson(l, &out);
  CHECK(out.ends_with(R"("targetHasOutlink":false})"));
}

TEST_CASE("stats JSON") {
  std::string out;
  AppendStatsJson(DbStats{3, 18446744073709551615u}, &out);
  CHECK(out == R"({"pages":3,"links":18446744073709551615})");
}

TEST_CASE("floats print in shortest round-trip form") {
  CHECK(FloatText(0.1f) == "0.1");
  CHECK(FloatText(1.0f) == "1");
  CHECK(FloatText(-0.0f) == "-0");
  CHECK(FloatText(std::numeric_limits<float>::denorm_min()) == "1e-45");
  CHECK(FloatText(std::numeric_limits<float>::max()) == "3.4028235e+38");
  CHECK(FloatText(std::numeric_limits<float>::quiet_NaN()) == "null");
  CHECK(FloatText(-std::numeric_limits<float>::infinity()) == "null");
}

TEST_CASE("printed floats parse back to the same bits") {
  for (float f : {0.1f, 1.0f, -0.0f, 0.0f, 1.5f, 3.4028235e38f, -3.4028235e38f, 1e-45f,
                  std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::min() - std::numeric_limits<float>::denorm_min(),
                  1e-40f, 16777217.0f, 123456789.0f, 1.17549435e-38f}) {
    CheckRoundTrip(f);
  }
}

TEST_CASE("random float bit patterns round-trip", "[random]") {
  std::mt19937 rng(20240601);
  for (int i = 0; i < 20000; ++i) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (!std::isfinite(f)) continue;
    CheckRoundTrip(f);
  }
}

TEST_CASE("string escaping") {
  CHECK(Json("plain") == "\"plain\"");
  CHECK(Json("a\"b\\c") == R"("a\"b\\c")");
  CHECK(Json(std::string("\0", 1)) == R"("\u0000")");
  CHECK(Json("\x01\n\t\x1f") == R"("\u0001\u000a\u0009\u001f")");
  CHECK(Json("\x7f/") == "\"\x7f/\"");
  CHECK(Json("") == "\"\"");
}

TEST_CASE("valid UTF-8 passes through unchanged") {
  const std::string text =
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbf \xf4\x8f\xbf\xbf";
  CHECK(Json(text) == "\"" + text + "\"");
  CHECK(DecodeJsonString(Json(text)) == text);
}

TEST_CASE("bytes outside valid UTF-8 are escaped one by one") {
  CHECK(Json("\xc3") == R"("\u00c3")");                                  // truncated
  CHECK(Json("\xc3x") == R"("\u00c3x")");                                // bad continuation
  CHECK(Json("\xc0\xaf") == R"("\u00c0\u00af")");                        // overlong
  CHECK(Json("\xe0\x80\xaf") == R"("\u00e0\u0080\u00af")");              // overlong
  CHECK(Json("\xed\xa0\x80") == R"("\u00ed\u00a0\u0080")");              // surrogate
  CHECK(Json("\xf4\x90\x80\x80") == R"("\u00f4\u0090\u0080\u0080")");    // > U+10FFFF
  CHECK(Json("\xe2\x82") == R"("\u00e2\u0082")");                        // cut at the end
  CHECK(Json("\xff\xfe") == R"("\u00ff\u00fe")");
  CHECK(Json("\x80" "a\xc3\xa9") == "\"\\u0080a\xc3\xa9\"");             // stray continuation
}

// Plain runs are found sixteen bytes at a time: a byte to escape, or a UTF-8 sequence,
// at every offset of strings around that width.
TEST_CASE("a special byte at any offset of a long string is found") {
  const std::pair<std::string, std::string> specials[] = {
      {"\"", R"(\")"}, {"\\", R"(\\)"}, {"\x01", R"(\u0001)"}, {"\x1f", R"(\u001f)"},
      {"\xff", R"(\u00ff)"}, {"\xc3\xa9", "\xc3\xa9"}, {"\x7f", "\x7f"}};
  for (size_t len : {15, 16, 17, 31, 32, 33, 47}) {
    for (size_t at = 0; at < len; ++at) {
      for (const auto& [raw, escaped] : specials) {
        const std::string head(at, 'a');
        const std::string tail(len - at, 'z');
        INFO(len << " " << at << " " << escaped);
        CHECK(Json(head + raw + tail) == "\"" + head + escaped + tail + "\"");
      }
    }
  }
}

TEST_CASE("escaped output is always valid JSON and exact for valid UTF-8", "[random]") {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(rng() % 40, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 256);
    std::string decoded = DecodeJsonString(Json(bytes));
    if (simdjson::validate_utf8(bytes.data(), bytes.size())) CHECK(decoded == bytes);
  }
}

TEST_CASE("call JSON parses back to the same call") {
  Page page = Page::WithDefaults("http://p/");
  page.score = 0.3f;
  Link link;
  link.from = Md5Of("x");
  link.url = "http://t/";
  link.anchor = "\xe2\x82\xac";
  link.domain_id = -3;
  std::vector<Call> calls = {
      {Call::Op::kAddPage, page, std::nullopt, ""},
      {Call::Op::kAddPageWithScore, page, std::nullopt, ""},
      {Call::Op::kAddPageIfNotPresent, page, std::nullopt, ""},
      {Call::Op::kAddPageIfNotPresent, page, link, ""},
      {Call::Op::kDeletePage, Page(), std::nullopt, "http://d/"},
      {Call::Op::kAddLink, Page(), link, ""},
  };
  CallParser parser;
  for (const Call& call : calls) {
    std::string line;
    AppendCallJson(call, &line);
    size_t size = line.size();
    line.append(CallParser::kPadding, ' ');
    Call back;
    Status s = parser.Parse(std::string_view(line.data(), size), &back);
    INFO(line << ": " << s.ToString());
    REQUIRE(s.ok());
    CHECK(back == call);
  }
}

}  // namespace
}  // namespace webdb
