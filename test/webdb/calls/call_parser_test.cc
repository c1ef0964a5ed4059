#include "webdb/calls/call_parser.h"

#include <catch2/catch.hpp>
#include <string>

#include "test/util/session_gen.h"
#include "webdb/calls/json_out.h"

namespace webdb {
namespace {

// Parses one line with the padding the parser requires.
Result<Call> ParseLine(const std::string& line) {
  static CallParser parser;
  std::string padded = line + std::string(CallParser::kPadding, 'x');
  Call call;
  Status s = parser.Parse(std::string_view(padded.data(), line.size()), &call);
  if (!s.ok()) return Err(s);
  return call;
}

Call MustParse(const std::string& line) {
  auto call = ParseLine(line);
  INFO(line);
  if (!call) FAIL(call.error().ToString());
  return *call;
}

// The line is rejected as InvalidArgument with a message containing `reason`.
void CheckRejected(const std::string& line, const std::string& reason) {
  auto call = ParseLine(line);
  INFO(line);
  REQUIRE_FALSE(call.has_value());
  CHECK(call.error().IsInvalidArgument());
  CHECK_THAT(call.error().message(), Catch::Contains(reason));
}

std::string PageLine(const std::string& fields) {
  return R"({"op":"addPage","page":{"url":"http://a/")" + fields + "}}";
}

std::string LinkLine(const std::string& fields) {
  return R"({"op":"addLink","link":{"from":"0123456789abcdef0123456789abcdef","url":"http://t/")" +
         fields + "}}";
}

TEST_CASE("absent page fields take the spec defaults") {
  Call call = MustParse(R"({"op":"addPage","page":{"url":"http://a/"}})");
  CHECK(call.op == Call::Op::kAddPage);
  CHECK(call.page == Page::WithDefaults("http://a/"));
  CHECK(call.page.md5 == Md5Of("http://a/"));
  CHECK(call.page.fetch_interval == 30);
  CHECK(call.page.score == 1.0f);
  CHECK(call.page.next_score == 1.0f);
  CHECK_FALSE(call.link.has_value());
}

TEST_CASE("every page field is read") {
  Call call = MustParse(
      R"({"page":{"nextScore":-2.5,"score":0.25,"numOutlinks":2147483647,"fetchInterval":0,)"
      R"("retries":255,"nextFetch":-9223372036854775808,"md5":"ffffffffffffffffffffffffffffffff",)"
      R"("url":"http://a/\u00e9"},"op":"addPageWithScore"})");
  CHECK(call.op == Call::Op::kAddPageWithScore);
  CHECK(call.page.url == "http://a/\xc3\xa9");
  CHECK(Md5Hex(call.page.md5) == "ffffffffffffffffffffffffffffffff");
  CHECK(call.page.next_fetch == std::numeric_limits<int64_t>::min());
  CHECK(call.page.retries == 255);
  CHECK(call.page.fetch_interval == 0);
  CHECK(call.page.num_outlinks == 2147483647);
  CHECK(call.page.score == 0.25f);
  CHECK(call.page.next_score == -2.5f);
}

TEST_CASE("links, deletes and addPageIfNotPresent with a link") {
  Call link = MustParse(LinkLine(R"(,"anchor":"a\u0000b","domainID":-7,"targetHasOutlink":true)"));
  CHECK(link.op == Call::Op::kAddLink);
  REQUIRE(link.link.has_value());
  CHECK(Md5Hex(link.link->from) == "0123456789abcdef0123456789abcdef");
  CHECK(link.link->url == "http://t/");
  CHECK(link.link->anchor == std::string("a\0b", 3));
  CHECK(link.link->domain_id == -7);
  CHECK_FALSE(link.link->target_has_outlink);  // ignored on input

  Call bare = MustParse(LinkLine(""));
  CHECK(bare.link->anchor.empty());
  CHECK(bare.link->domain_id == 0);

  Call del = MustParse(R"({"op":"deletePage","url":"http://gone/"})");
  CHECK(del.op == Call::Op::kDeletePage);
  CHECK(del.url == "http://gone/");

  Call apinp = MustParse(
      R"({"op":"addPageIfNotPresent","page":{"url":"http://n/"},)"
      R"("link":{"from":"00000000000000000000000000000000","url":"http://n/"}})");
  CHECK(apinp.op == Call::Op::kAddPageIfNotPresent);
  CHECK(apinp.page.url == "http://n/");
  REQUIRE(apinp.link.has_value());
  CHECK(apinp.link->url == "http://n/");
  CHECK_FALSE(MustParse(R"({"op":"addPageIfNotPresent","page":{"url":"http://n/"}})").link);
}

TEST_CASE("white space around tokens is allowed") {
  Call call = MustParse(" { \"op\" : \"deletePage\" ,\t\"url\" : \"http://x/\" } \r");
  CHECK(call.url == "http://x/");
}

TEST_CASE("malformed JSON is rejected") {
  CheckRejected(R"({"op":"deletePage","url":"http://x/")", "invalid JSON");
  CheckRejected("\xEF\xBB\xBF" R"({"op":"deletePage","url":"http://x/"})", "byte-order mark");
  CheckRejected(std::string(R"({"op":"deletePage",)") + '\0' + R"("url":"http://x/"})",
                "NUL byte at column 20");
  CheckRejected(R"({"op":"deletePage",)" "\f" R"("url":"http://x/"})",
                "control character 0x0C at column 20");
  CheckRejected(R"({"op":"deletePage","url":"http://x/)" "\f" R"("})",
                "control character 0x0C at column 36");
  CheckRejected(R"({"op":"deletePage","url":"http://x/"} x)", "");
  CheckRejected(R"({"op":"deletePage","url":"http://x/",})", "invalid JSON");
  CheckRejected(R"({"op":"deletePage" "url":"http://x/"})", "invalid JSON");
  CheckRejected("{\"op\":\"deletePage\",\"url\":\"http://x/\xc3\"}", "invalid JSON");  // bad UTF-8
  CheckRejected("{\"op\":\"deletePage\",\"url\":\"a\tb\"}", "invalid JSON");  // raw control char
  CheckRejected(R"({"op":"deletePage","url":"\ud800"})", "invalid JSON");     // lone surrogate
  CheckRejected(R"(["op"])", "found an array");
  CheckRejected(R"("addPage")", "");
  CheckRejected("nul", "");
  // Found by call_line_fuzz: an object left open crashed simdjson's on-demand parser.
  CheckRejected(R"({"op":)", "invalid JSON: the object is not closed");
  CheckRejected(R"( {"op":"deletePage","url":)" " \r", "invalid JSON: the object is not closed");
}

// Issue 36, item 18: a scalar line got simdjson's advice on its own API, text after a
// closed object was "the object is not closed", and a NUL was to be written \u000c.
TEST_CASE("malformed lines are named plainly") {
  const std::pair<const char*, const char*> scalars[] = {
      {"5", "a number"},       {"-1.5e3", "a number"}, {R"("addPage")", "a string"},
      {"true", "true"},        {"false", "false"},     {"null", "null"},
      {"nul", "text that is not JSON"}};
  for (const auto& [line, what] : scalars) {
    auto call = ParseLine(line);
    INFO(line);
    REQUIRE_FALSE(call);
    CHECK(call.error().message() ==
          std::string("a call is one JSON object {...} a line; found ") + what);
  }
  CheckRejected(R"(["op"])", "a call is one JSON object {...} a line; found an array");
  for (const char* line : {R"({"op":"deletePage","url":"http://x/"} x)",
                           R"({"op":"deletePage","url":"http://x/"}})",
                           R"({"op":"deletePage","url":"http://x/"}{})",
                           R"({"op":"deletePage","url":"}"} ])"}) {
    auto call = ParseLine(line);
    INFO(line);
    REQUIRE_FALSE(call);
    CHECK_THAT(call.error().message(), Catch::StartsWith("unexpected text after the JSON object"));
  }
  CheckRejected(R"({"op":"deletePage","url":"x}"   )", "the object is not closed");
  CheckRejected(R"({"op":"deletePage","url":"x\"})", "the object is not closed");
  CheckRejected(std::string(R"({"op":"deletePage","url":"a)") + '\0' + R"("})",
                "NUL byte at column 28: not allowed in JSON (inside a string, write it as "
                "\\u0000)");
  CheckRejected(R"({"op":"deletePage","url":"a)" "\x1b" R"("})",
                "control character 0x1B at column 28: not allowed in JSON (inside a string, "
                "write it as \\u001b)");
  auto escaped = ParseLine(R"({"op":"deletePage","url":"x\\"} )");
  CHECK(escaped);  // a backslash escape ends no string early
}

TEST_CASE("ops and call shapes are checked") {
  CheckRejected(R"({"op":"addpage","page":{"url":"http://a/"}})", "unknown op \"addpage\"");
  CheckRejected(R"({"page":{"url":"http://a/"}})", "missing field \"op\"");
  CheckRejected(R"({"op":7,"page":{"url":"http://a/"}})", "op: expected a string, got a number");
  CheckRejected(R"({"op":"addPage"})", "missing field \"page\" (required by addPage)");
  CheckRejected(R"({"op":"deletePage"})", "missing field \"url\" (required by deletePage)");
  CheckRejected(R"({"op":"addLink"})", "missing field \"link\" (required by addLink)");
  CheckRejected(R"({"op":"addPage","page":{"url":"http://a/"},"url":"http://a/"})",
                "field \"url\" is not allowed with addPage");
  CheckRejected(R"({"op":"addPageWithScore","page":{"url":"http://a/"},"link":{}})",
                "link: missing field \"from\"");
  CheckRejected(R"({"op":"deletePage","url":"http://a/","page":{"url":"http://a/"}})",
                "field \"page\" is not allowed with deletePage");
  CheckRejected(R"({"op":"addPage","page":{"url":"http://a/"},"extra":1})",
                "unknown field \"extra\"");
  CheckRejected(R"({"op":"addPage","op":"addPage","page":{"url":"http://a/"}})",
                "duplicate field \"op\"");
}

TEST_CASE("page fields are checked") {
  CheckRejected(R"({"op":"addPage","page":{"md5":"0123456789abcdef0123456789abcdef"}})",
                "page: missing field \"url\"");
  CheckRejected(R"({"op":"addPage","page":"http://a/"})", "page: expected an object, got a string");
  CheckRejected(PageLine(R"(,"nextfetch":1)"), "page: unknown field \"nextfetch\"");
  CheckRejected(PageLine(R"(,"url":"http://b/")"), "page: duplicate field \"url\"");
  CheckRejected(PageLine(R"(,"retries":null)"), "page.retries: expected an integer, got null");
  CheckRejected(PageLine(R"(,"retries":"1")"), "page.retries: expected an integer, got a string");
  CheckRejected(PageLine(R"(,"retries":1.0)"), "page.retries: expected an integer, got 1.0");
  CheckRejected(PageLine(R"(,"retries":1e2)"), "page.retries: expected an integer, got 1e2");
  CheckRejected(PageLine(R"(,"retries":256)"), "page.retries: 256 is out of range 0..255");
  CheckRejected(PageLine(R"(,"retries":-1)"), "page.retries: -1 is out of range 0..255");
  CheckRejected(PageLine(R"(,"fetchInterval":1000)"), "page.fetchInterval: 1000 is out of range");
  CheckRejected(PageLine(R"(,"numOutlinks":-1)"),
                "page.numOutlinks: -1 is out of range 0..2147483647");
  CheckRejected(PageLine(R"(,"numOutlinks":2147483648)"), "page.numOutlinks: 2147483648 is out");
  CheckRejected(PageLine(R"(,"nextFetch":9223372036854775808)"),
                "page.nextFetch: 9223372036854775808 is out of range");
  CheckRejected(PageLine(R"(,"nextFetch":-9223372036854775809)"), "page.nextFetch: ");
  CheckRejected(PageLine(R"(,"nextFetch":01)"), "page.nextFetch: ");
  CheckRejected(PageLine(R"(,"score":3.5e38)"), "page.score: 3.5e38 is out of float32 range");
  CheckRejected(PageLine(R"(,"nextScore":-1e39)"), "page.nextScore: -1e39 is out of float32 range");
  CheckRejected(PageLine(R"(,"score":1e400)"), "page.score: 1e400 is not a valid JSON number");
  CheckRejected(PageLine(R"(,"score":true)"), "page.score: expected a number, got a bool");
  CheckRejected(PageLine(R"(,"score":"NaN")"), "page.score: expected a number, got a string");
}

TEST_CASE("float edge values") {
  CHECK(MustParse(PageLine(R"(,"score":3.4028235e38)")).page.score ==
        std::numeric_limits<float>::max());
  CHECK(MustParse(PageLine(R"(,"score":1e-45)")).page.score ==
        std::numeric_limits<float>::denorm_min());
  CHECK(MustParse(PageLine(R"(,"score":1e-50)")).page.score == 0.0f);  // underflow rounds to 0
  CHECK(MustParse(PageLine(R"(,"score":2)")).page.score == 2.0f);
  CHECK(MustParse(PageLine(R"(,"score":-0.0)")).page.score == 0.0f);
}

TEST_CASE("md5s must be 32 lowercase hex digits") {
  CheckRejected(PageLine(R"(,"md5":"0123456789ABCDEF0123456789abcdef")"),
                "page.md5: expected 32 lowercase hex digits, got \"0123456789ABCDEF");
  CheckRejected(PageLine(R"(,"md5":"0123")"), "page.md5: expected 32 lowercase hex digits");
  CheckRejected(PageLine(R"(,"md5":"0123456789abcdef0123456789abcdef0")"), "page.md5: ");
  CheckRejected(PageLine(R"(,"md5":"g123456789abcdef0123456789abcdef")"), "page.md5: ");
  CheckRejected(PageLine(R"(,"md5":16)"), "page.md5: expected a string");
  CheckRejected(LinkLine("").replace(LinkLine("").find("0123"), 4, "zzzz"), "link.from: ");
}

TEST_CASE("urls and anchors are checked") {
  CheckRejected(R"({"op":"addPage","page":{"url":""}})", "page.url: url is empty");
  CheckRejected(R"({"op":"addPage","page":{"url":"a\u0000b"}})",
                "page.url: url has control byte 0x00");
  CheckRejected(R"({"op":"addPage","page":{"url":"a\nb"}})", "page.url: url has control byte 0x0a");
  CheckRejected(R"({"op":"deletePage","url":"a\u007f"})", "url: url has control byte 0x7f");
  CheckRejected(R"({"op":"addLink","link":{"from":"0123456789abcdef0123456789abcdef","url":""}})",
                "link.url: url is empty");
  CheckRejected(R"({"op":"addLink","link":{"url":"http://t/"}})", "link: missing field \"from\"");
  CheckRejected(R"({"op":"addLink","link":{"from":"0123456789abcdef0123456789abcdef"}})",
                "link: missing field \"url\"");
  CheckRejected(LinkLine(R"(,"targetHasOutlink":1)"), "link.targetHasOutlink: expected a bool");
  CheckRejected(LinkLine(R"(,"domainID":1.5)"), "link.domainID: expected an integer");
  CheckRejected(LinkLine(R"(,"anchor":5)"), "link.anchor: expected a string");

  std::string max_url = "http://" + std::string(kMaxUrlLength - 7, 'u');
  CHECK(MustParse(R"({"op":"deletePage","url":")" + max_url + "\"}").url == max_url);
  CheckRejected(R"({"op":"deletePage","url":")" + max_url + "v\"}", "url: url is 65536 bytes");
  std::string max_anchor(kMaxAnchorLength, 'a');
  CHECK(MustParse(LinkLine(R"(,"anchor":")" + max_anchor + "\"")).link->anchor == max_anchor);
  CheckRejected(LinkLine(R"(,"anchor":")" + max_anchor + "b\""),
                "link.anchor: 65536 bytes, more than 65535");
}

TEST_CASE("generated sessions survive a call file round trip", "[random]") {
  testutil::GenOptions options;
  options.hostile_bytes = false;  // call files are UTF-8: arbitrary bytes cannot be carried
  testutil::SessionGenerator gen(99, options);
  for (int s = 0; s < 20; ++s) {
    for (Call call : gen.Next()) {
      std::string line;
      AppendCallJson(call, &line);
      if (call.link) call.link->target_has_outlink = false;  // not taken from input
      if (call.op == Call::Op::kDeletePage || call.op == Call::Op::kAddLink) call.page = Page();
      INFO(line.substr(0, 300));
      CHECK(MustParse(line) == call);
    }
  }
}

}  // namespace
}  // namespace webdb
