// The fast path of the call parser (webdb/calls/plain_call_scanner.h): for every line it takes,
// the Call simdjson's parser gives; it leaves every other line to that parser. Checked
// on hand-picked edge cases, on the lines of generated sessions, and on 100k single-byte
// mutations of their lines.
#include "webdb/calls/plain_call_scanner.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "test/util/session_gen.h"
#include "webdb/calls/call_parser.h"
#include "webdb/calls/json_out.h"

namespace webdb {
namespace {

Result<Call> ParseJson(const std::string& line) {
  static CallParser parser;
  std::string padded = line + std::string(CallParser::kPadding, ' ');
  return parser.ParseJson(std::string_view(padded.data(), line.size()));
}

// When the scanner takes line, the full parser gives the same call. True if it took it.
// Every line is scanned into the same Call, as a reader does: nothing of a line before
// may stay in it.
bool TakenAlike(const std::string& line) {
  static Call reused;
  if (!ScanPlainCall(line, &reused)) return false;
  auto full = ParseJson(line);
  INFO(line);
  REQUIRE(full.has_value());
  CHECK(*full == reused);
  return true;
}

// The scanner's call for line, or nullopt if it does not take it.
std::optional<Call> Scan(const std::string& line) {
  Call call;
  if (!ScanPlainCall(line, &call)) return std::nullopt;
  return call;
}

const std::string kPage =
    R"({"op":"addPage","page":{"url":"http://a.example/x","md5":"0123456789abcdef0123456789abcdef",)"
    R"("nextFetch":-12,"retries":3,"fetchInterval":30,"numOutlinks":7,"score":1.5,"nextScore":0}})";
const std::string kLink =
    R"({"op":"addLink","link":{"from":"0123456789abcdef0123456789abcdef","url":"http://t.example/",)"
    R"("domainID":-5,"anchor":"an anchor","targetHasOutlink":true}})";

std::string Replace(std::string line, const std::string& from, const std::string& to) {
  const size_t at = line.find(from);
  REQUIRE(at != std::string::npos);
  return line.replace(at, from.size(), to);
}

TEST_CASE("the plain-form scanner reads plain lines as the JSON parser does", "[call_parser]") {
  for (
      const std::string& line : std::vector<std::string>{
          kPage, kLink, std::string(R"({"page":{"url":"http://a/"},"op":"addPageWithScore"})"),
          std::string(
              R"(  { "op" : "addPageIfNotPresent" , "page" : { "url" : "http://a/" } ,)"
              R"( "link" : {"url":"http://b/","from":"0123456789abcdef0123456789abcdef"} }	)"),
          std::string("{\"op\":\"deletePage\",\"url\":\"http://a/~\"}"),
          std::string("{\"op\":\"addLink\",\"link\":{\"from\":"
                      "\"0123456789abcdef0123456789abcdef\","
                      "\"url\":\"http://t/\xc3\xa9\",\"anchor\":\"\xe2\x82\xac\"}}\r"),
          Replace(kPage, "1.5", "-0.0"), Replace(kPage, "1.5", "3.4e38"),
          Replace(kPage, "1.5", "1E-3"),
          Replace(kPage, "1.5", "0.1000000000000000055511151231257827"),
          Replace(kPage, "-12", "9223372036854775807"),
          Replace(kPage, "-12", "-9223372036854775808"),
          Replace(kPage, "\"retries\":3", "\"retries\":255")}) {
    CHECK(TakenAlike(line));
  }
  // A page without md5 takes the md5 of its url, as the parser gives it.
  auto no_md5 = Scan(R"({"op":"addPage","page":{"url":"http://a/"}})");
  REQUIRE(no_md5.has_value());
  CHECK(no_md5->page.md5 == Md5Of("http://a/"));
}

TEST_CASE("the plain-form scanner leaves unusual and bad lines to the JSON parser",
          "[call_parser]") {
  for (const std::string& line : std::vector<std::string>{
           Replace(kPage, "\"url\"", "\"u\\u0072l\""),  // an escape in a key
           Replace(kLink, "an anchor",
                   "an \\\"anchor\\\""),               // an escape in a value
           Replace(kLink, "an anchor", "an\tanchor"),  // a raw tab in a string
           Replace(kPage, "-12", "-0"),
           Replace(kPage, "-12", "012"),
           Replace(kPage, "-12", "9223372036854775808"),
           Replace(kPage, "-12", "-9223372036854775809"),
           Replace(kPage, "-12", "10000000000000000000"),
           Replace(kPage, "-12", "1.0"),
           Replace(kPage, "-12", "1e3"),
           Replace(kPage, "\"retries\":3", "\"retries\":256"),
           Replace(kPage, "1.5", "1e39"),
           Replace(kPage, "1.5", "1e-50"),
           Replace(kPage, "1.5", ".5"),
           Replace(kPage, "1.5", "1."),
           Replace(kPage, "1.5", "+1"),
           Replace(kPage, "1.5", "\"1\""),
           Replace(kPage, "1.5", "1." + std::string(70, '0')),
           Replace(kLink, "true", "null"),
           Replace(kLink, "true", "truex"),
           Replace(kPage, "\"retries\":3", "\"retries\":3,\"retries\":3"),
           Replace(kPage, "\"retries\":3", "\"tries\":3"),
           Replace(kPage, "http://a.example/x", ""),  // not a url
           Replace(kPage, "0123456789abcdef0123456789abcdef", "0123456789ABCDEF0123456789ABCDEF"),
           Replace(kPage, "addPage", "addpage"),
           Replace(kLink, "addLink", "addPage"),
           R"({"op":"deletePage","url":"http://a/","page":{"url":"http://a/"}})",
           R"({"op":"addLink","link":{"url":"http://a/"}})",
           R"({"page":{"url":"http://a/"}})",
           kPage + " x",
           kPage.substr(0, kPage.size() - 1),
           "\xEF\xBB\xBF" + kPage,
           Replace(kPage, "http://a.example/x",
                   "http://a.example/\xc3"),  // bad UTF-8
           "",
           "{}",
           "[]",
           "null"}) {
    INFO(line);
    CHECK_FALSE(Scan(line).has_value());
  }
}

// Strings are scanned sixteen bytes a step: every length of anchor up to 47 bytes is
// read whole (the anchor is the link's last string: its end is near the line's), and a
// raw control byte, a backslash (an escape) or a quote at any offset ends or refuses it
// as a byte-by-byte scan would. Bytes 0x7f and above are plain.
TEST_CASE("the plain-form scanner finds a string's special bytes at every offset",
          "[call_parser]") {
  for (size_t length = 0; length < 48; ++length) {
    std::string anchor;
    for (size_t i = 0; i < length; ++i) anchor.push_back(i % 3 == 0 ? '\x7f' : 'a' + i % 26);
    const std::string line = Replace(kLink, "an anchor", anchor);
    INFO("length " << length);
    const std::optional<Call> call = Scan(line);
    REQUIRE(call.has_value());
    CHECK(call->link->anchor == anchor);
    for (size_t at = 0; at < length; ++at) {
      INFO("at " << at);
      for (char special : {'\x01', '\x1f', '\\'}) {
        std::string bad = anchor;
        bad[at] = special;
        CHECK_FALSE(Scan(Replace(kLink, "an anchor", bad)).has_value());
      }
      std::string early = anchor;  // the string ends at the quote, and the line is broken
      early[at] = '"';
      CHECK_FALSE(Scan(Replace(kLink, "an anchor", early)).has_value());
    }
  }
}

TEST_CASE(
    "generated sessions and mutations of their lines: the scanner agrees "
    "with the parser",
    "[call_parser][random]") {
  const uint64_t seed = std::random_device{}();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<std::string> lines;
  for (bool hostile : {false, true}) {
    testutil::GenOptions options;
    options.hostile_bytes = hostile;
    options.long_url_chance = 0;
    options.long_anchor_chance = 0;
    testutil::SessionGenerator gen(rng(), options);
    for (int s = 0; s < 20; ++s) {
      for (const testutil::Call& call : gen.Next()) {
        std::string line;
        AppendCallJson(call, &line);
        lines.push_back(line);
      }
    }
  }
  // AppendCallJson writes plain form but for the escapes of hostile bytes.
  for (const std::string& line : lines) {
    const bool taken = TakenAlike(line);
    if (line.find('\\') == std::string::npos) {
      INFO(line);
      CHECK(taken);
    }
  }

  const std::string bytes = "\"\\{}[]:,. 0123456789-+eEtrufalsn\t\x80\xc3";
  size_t mutated_taken = 0;
  for (int n = 0; n < 100000; ++n) {
    std::string line = lines[rng() % lines.size()];
    const size_t at = rng() % line.size();
    switch (rng() % 3) {
      case 0: line.erase(at, 1); break;
      case 1: line[at] = bytes[rng() % bytes.size()]; break;
      default: line.insert(at, 1, bytes[rng() % bytes.size()]); break;
    }
    mutated_taken += TakenAlike(line);
  }
  CHECK(mutated_taken > 0);
}

}  // namespace
}  // namespace webdb
