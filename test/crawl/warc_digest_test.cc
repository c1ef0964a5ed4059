#include "crawl/warc_digest.h"

#include <catch2/catch.hpp>

#include "test/util/warc_util.h"

namespace crawl {
namespace {

using testutil::HttpText;

// The record that WarcRecordText frames, parsed back, with one more header.
WarcRecord Record(std::string_view type, std::string_view block, std::string_view name = "",
                  std::string_view value = "") {
  WarcRecord r;
  r.version = "WARC/1.0";
  r.headers = {{"WARC-Type", std::string(type)},
               {"WARC-Target-URI", "http://a.example/"},
               {"WARC-Date", "2026-01-02T03:04:05Z"}};
  if (type == "response" || type == "request") {
    r.headers.emplace_back("Content-Type", "application/http;msgtype=" + std::string(type));
  }
  if (!name.empty()) r.headers.emplace_back(std::string(name), std::string(value));
  r.block = std::string(block);
  return r;
}

TEST_CASE("base32 as RFC 4648 gives it", "[warc]") {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "MY======"},
                                                         {"fo", "MZXQ===="},
                                                         {"foo", "MZXW6==="},
                                                         {"foob", "MZXW6YQ="},
                                                         {"fooba", "MZXW6YTB"},
                                                         {"foobar", "MZXW6YTBOI======"}};
  for (auto [plain, encoded] : vectors) {
    CHECK(EncodeBase32(plain) == encoded);
    CHECK(DecodeBase32(encoded) == std::string(plain));
  }
  CHECK(DecodeBase32("mzxw6ytboi") == std::string("foobar"));  // any case, no padding
  CHECK_FALSE(DecodeBase32("MZ1W").has_value());               // 1 is not a base32 digit
}

TEST_CASE("the block digest: sha1 or sha256, base32 or hex", "[warc]") {
  // SHA-1 and SHA-256 of "abc" (FIPS 180-2's vectors), as base32 and hex.
  for (const char* digest :
       {"sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5", "SHA-1:vgmt4nsha2awvor6evyxqugcnsonbwe5",
        "sha1:a9993e364706816aba3e25717850c26c9cd0d89d",
        "sha256:XJ4BNP4PAHH6UQKBIDPF3LRCEOYAGYNDSYLXVHFUCD7WD4QACWWQ====", "md5:not-checked"}) {
    INFO(digest);
    CHECK(CheckWarcDigests(Record("resource", "abc", "WARC-Block-Digest", digest)).ok());
  }
  Status wrong = CheckWarcDigests(
      Record("resource", "abd", "WARC-Block-Digest", "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"));
  REQUIRE(wrong.IsCorruption());
  CHECK(wrong.message() ==
        "WARC-Block-Digest sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5 does not "
        "match the block (" +
            testutil::Sha1Digest("abd") + ")");
  Status malformed = CheckWarcDigests(Record("warcinfo", "abc", "WARC-Block-Digest", "sha1:xyz"));
  REQUIRE(malformed.IsCorruption());
  CHECK_THAT(malformed.message(), Catch::StartsWith("malformed WARC-Block-Digest 'sha1:xyz'"));
  CHECK(CheckWarcDigests(Record("resource", "anything")).ok());  // no digest: nothing to check
}

TEST_CASE("the payload digest of an HTTP response: the body as received or de-chunked", "[warc]") {
  const std::string body = "<p>hello</p>";
  const std::string plain = HttpText(200, "Content-Type: text/html\r\n", body);
  CHECK(
      CheckWarcDigests(Record("response", plain, "WARC-Payload-Digest", testutil::Sha1Digest(body)))
          .ok());
  const std::string chunked =
      HttpText(200, "Transfer-Encoding: chunked\r\n", testutil::Chunked(body, 5));
  for (const std::string& digested : {testutil::Chunked(body, 5), body}) {
    CHECK(CheckWarcDigests(
              Record("response", chunked, "WARC-Payload-Digest", testutil::Sha1Digest(digested)))
              .ok());
  }
  Status wrong = CheckWarcDigests(
      Record("response", plain, "WARC-Payload-Digest", testutil::Sha1Digest("<p>other</p>")));
  REQUIRE(wrong.IsCorruption());
  CHECK_THAT(wrong.message(),
             Catch::Contains("does not match the payload (" + testutil::Sha1Digest(body) + ")"));
  // A revisit's payload digest is of the payload it revisits: not this record's.
  CHECK(CheckWarcDigests(Record("revisit", "HTTP/1.1 304 Not Modified\r\n\r\n",
                                "WARC-Payload-Digest", testutil::Sha1Digest("elsewhere")))
            .ok());
  // A resource's payload is its block.
  CHECK(CheckWarcDigests(
            Record("resource", "abc", "WARC-Payload-Digest", testutil::Sha1Digest("abc")))
            .ok());
  CHECK_FALSE(CheckWarcDigests(
                  Record("resource", "abc", "WARC-Payload-Digest", testutil::Sha1Digest("abd")))
                  .ok());
}

}  // namespace
}  // namespace crawl
