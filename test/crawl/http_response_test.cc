#include "crawl/http_response.h"

#include <catch2/catch.hpp>

#include "test/util/warc_util.h"

namespace crawl {
namespace {

using testutil::HttpText;

TEST_CASE("status, headers and a plain body", "[http]") {
  auto r = ParseHttpResponse(HttpText(
      200, "Content-Type: Text/HTML; charset=UTF-8\r\nX-Folded: a\r\n  b\r\n", "<p>hi</p>"));
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->MediaType() == "text/html");
  CHECK(r->IsHtml());
  CHECK(r->Header("x-folded") == "a b");
  CHECK(r->body == "<p>hi</p>");
}

TEST_CASE("bare LF line ends and a status line without reason", "[http]") {
  auto r = ParseHttpResponse("HTTP/1.0 404\nContent-Type: text/plain\n\nnot found");
  REQUIRE(r);
  CHECK(r->status == 404);
  CHECK_FALSE(r->IsHtml());
  CHECK(r->body == "not found");
}

// Issue 36, item 10: "HTTP/1.1 4040" was read as 404, and the page marked gone for ever.
TEST_CASE("a status code is exactly three digits, then a space or the end of the line", "[http]") {
  for (const char* line : {"HTTP/1.1 4040 Not Found", "HTTP/1.1 4040", "HTTP/1.1 200OK",
                           "HTTP/1.1 20", "HTTP/1.1 099 x", "HTTP/1.x 200 OK", "HTTP/1.1  200 OK",
                           "HTTP/1.1 2000000000000000000000 OK"}) {
    INFO(line);
    auto r = ParseHttpResponse(std::string(line) + "\r\n\r\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().IsCorruption());
    CHECK_THAT(r.error().message(), Catch::Contains("bad HTTP status line"));
  }
  for (const char* line : {"HTTP/1.1 404", "HTTP/1.1 404 ", "HTTP/1.0 999 Request denied"}) {
    INFO(line);
    auto r = ParseHttpResponse(std::string(line) + "\r\n\r\n");
    REQUIRE(r);
    CHECK(r->status == std::stoi(std::string(line).substr(9, 3)));
  }
}

TEST_CASE("a compressed body that decodes past the limit is refused", "[http]") {
  const std::string bomb = testutil::Gzip(std::string(kMaxDecodedBody + 1, 'a'));
  CHECK(bomb.size() < kMaxDecodedBody / 200);  // deflate shrinks a run about 1000-fold
  auto r = ParseHttpResponse(HttpText(200, "Content-Encoding: gzip\r\n", bomb));
  REQUIRE_FALSE(r);
  CHECK(r.error().IsCorruption());
  CHECK_THAT(r.error().message(), Catch::Contains("body decodes to more than 64 MiB"));
  auto fits = ParseHttpResponse(
      HttpText(200, "Content-Encoding: gzip\r\n", testutil::Gzip(std::string(1 << 20, 'a'))));
  REQUIRE(fits);
  CHECK(fits->body.size() == size_t{1} << 20);
}

TEST_CASE("chunked and content-encoded bodies", "[http]") {
  std::string body;
  for (int i = 0; i < 5000; ++i) body += "line " + std::to_string(i) + "\n";
  auto chunked = ParseHttpResponse(
      HttpText(200, "Transfer-Encoding: chunked\r\n", testutil::Chunked(body, 777)));
  REQUIRE(chunked);
  CHECK(chunked->body == body);
  auto gzip = ParseHttpResponse(
      HttpText(200, "Content-Encoding: gzip\r\n", testutil::Gzip(body)));
  REQUIRE(gzip);
  CHECK(gzip->body == body);
  auto both = ParseHttpResponse(HttpText(200,
                                         "Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n",
                                         testutil::Chunked(testutil::Gzip(body), 1000)));
  REQUIRE(both);
  CHECK(both->body == body);
  for (bool raw : {false, true}) {
    auto deflate =
        ParseHttpResponse(HttpText(200, "Content-Encoding: deflate\r\n", testutil::Deflate(body, raw)));
    REQUIRE(deflate);
    CHECK(deflate->body == body);
  }
  auto members = ParseHttpResponse(HttpText(
      200, "Content-Encoding: x-gzip\r\n", testutil::Gzip("ab") + testutil::Gzip("cd")));
  REQUIRE(members);
  CHECK(members->body == "abcd");
  auto br = ParseHttpResponse(HttpText(200, "Content-Encoding: br\r\n", testutil::Brotli(body)));
  REQUIRE(br);
  CHECK(br->body == body);
  auto zstd = ParseHttpResponse(HttpText(200, "Content-Encoding: zstd\r\n",
                                         testutil::Chunked(testutil::Zstd(body), 500)));
  REQUIRE_FALSE(zstd);  // not de-chunked: no Transfer-Encoding header
  zstd = ParseHttpResponse(HttpText(200, "Transfer-Encoding: chunked\r\nContent-Encoding: zstd\r\n",
                                    testutil::Chunked(testutil::Zstd(body), 500)));
  REQUIRE(zstd);
  CHECK(zstd->body == body);
  auto frames = ParseHttpResponse(
      HttpText(200, "Content-Encoding: zstd\r\n", testutil::Zstd("ab") + testutil::Zstd("cd")));
  REQUIRE(frames);
  CHECK(frames->body == "abcd");
}

TEST_CASE("brotli and zstd bodies: truncated, damaged, or too large", "[http]") {
  const std::string body(100000, 'x');
  for (const std::string encoding : {"br", "zstd"}) {
    INFO(encoding);
    const std::string encoded =
        encoding == "br" ? testutil::Brotli(body + "tail") : testutil::Zstd(body + "tail");
    const std::string header = "Content-Encoding: " + encoding + "\r\n";
    auto truncated = ParseHttpResponse(HttpText(200, header, encoded.substr(0, encoded.size() - 2)));
    REQUIRE_FALSE(truncated);
    CHECK(truncated.error().IsCorruption());
    CHECK_THAT(truncated.error().message(), Catch::Contains("body does not decode (" + encoding));
    auto garbage = ParseHttpResponse(HttpText(200, header, "\xff\xfe not compressed at all"));
    REQUIRE_FALSE(garbage);
    CHECK(garbage.error().IsCorruption());
    const std::string big(kMaxDecodedBody + 1, 'a');
    auto bomb = ParseHttpResponse(
        HttpText(200, header, encoding == "br" ? testutil::Brotli(big) : testutil::Zstd(big)));
    REQUIRE_FALSE(bomb);
    CHECK_THAT(bomb.error().message(), Catch::Contains("body decodes to more than 64 MiB"));
  }
}

TEST_CASE("malformed responses", "[http]") {
  CHECK(!ParseHttpResponse("ICY 200 OK\r\n\r\n"));
  CHECK(!ParseHttpResponse("HTTP/1.1 2x0 OK\r\n\r\n"));
  CHECK(!ParseHttpResponse("HTTP/1.1 200 OK\r\nno colon\r\n\r\n"));
  CHECK(!ParseHttpResponse("HTTP/1.1 200 OK\r\nA: b\r\n"));
  CHECK(!ParseHttpResponse(HttpText(200, "Transfer-Encoding: chunked\r\n", "zz\r\nab\r\n0\r\n\r\n")));
  CHECK(!ParseHttpResponse(HttpText(200, "Transfer-Encoding: chunked\r\n", "5\r\nab")));
  std::string gz = testutil::Gzip("hello world");
  auto truncated =
      ParseHttpResponse(HttpText(200, "Content-Encoding: gzip\r\n", gz.substr(0, gz.size() - 3)));
  REQUIRE_FALSE(truncated);
  CHECK(truncated.error().IsCorruption());
  CHECK(!ParseHttpResponse(HttpText(200, "Content-Encoding: compress\r\n", "x")));
}

}  // namespace
}  // namespace crawl
