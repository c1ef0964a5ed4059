// Records: the url and md5 checks against their byte-by-byte definitions; keys.
#include "webdb/table/record.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace webdb {
namespace {

TEST_CASE("ValidateUrl rejects exactly the control bytes, at every offset", "[record]") {
  // Every byte value at every position of urls long enough to cover the vector check's
  // whole steps and tail, with the other bytes ordinary, high (UTF-8) or 0x7e/0x20 neighbours.
  for (char filler : {'a', '\x80', '\xff', '\x7e', ' '}) {
    for (size_t size = 1; size <= 35; ++size) {
      for (size_t at = 0; at < size; ++at) {
        for (int c = 0; c < 256; ++c) {
          std::string url(size, filler);
          url[at] = static_cast<char>(c);
          const bool control = c < 0x20 || c == 0x7f;
          Status s = ValidateUrl(url);
          INFO("size " << size << " at " << at << " byte " << c << " filler " << int(filler));
          REQUIRE(s.ok() == !control);
          if (control) {
            CHECK(s.message().find("at offset " + std::to_string(at)) != std::string::npos);
          }
        }
      }
    }
  }
  CHECK_FALSE(ValidateUrl("").ok());
  CHECK_FALSE(ValidateUrl(std::string(65536, 'a')).ok());
  CHECK(ValidateUrl(std::string(65535, 'a')).ok());
}

TEST_CASE("ParseMd5Hex takes exactly 32 lowercase hex digits and gives their bytes", "[record]") {
  const std::string hex = "0123456789abcdeffedcba9876543210";
  const Md5 expected = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                        0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
  REQUIRE(ParseMd5Hex(hex));
  CHECK(*ParseMd5Hex(hex) == expected);
  for (const Md5& m : {Md5Of(""), Md5Of("a"), Md5Of("http://a.example/")}) {
    CHECK(*ParseMd5Hex(Md5Hex(m)) == m);
  }
  for (size_t at = 0; at < hex.size(); ++at) {
    for (int c = 0; c < 256; ++c) {
      std::string s = hex;
      s[at] = static_cast<char>(c);
      const bool digit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      INFO("at " << at << " byte " << c);
      auto parsed = ParseMd5Hex(s);
      REQUIRE(bool(parsed) == digit);
      if (!digit) continue;
      const int nibble = c <= '9' ? c - '0' : c - 'a' + 10;
      const int shift = at % 2 == 0 ? 4 : 0;
      CHECK((*parsed)[at / 2] == ((expected[at / 2] & ~(15 << shift)) | nibble << shift));
    }
  }
  CHECK_FALSE(ParseMd5Hex(hex.substr(1)));
  CHECK_FALSE(ParseMd5Hex(hex + "0"));
  CHECK_FALSE(ParseMd5Hex(""));
}

TEST_CASE("SetLinkMd5Key gives LinkMd5Key in a reused string", "[record]") {
  const Md5 from = Md5Of("a");
  std::string key = "left from a longer key before: " + std::string(100, 'x');
  const std::vector<std::string> urls = {"http://a.example/", std::string(300, 'u'), ""};
  for (const std::string& url : urls) {
    SetLinkMd5Key(from, url, &key);
    CHECK(key == LinkMd5Key(from, url));
    CHECK(key.size() == 16 + url.size());
  }
}

TEST_CASE("a malformed row is Corruption naming its table and key", "[record]") {
  auto page = DecodePageByUrl("http://a.example/", "short");
  REQUIRE_FALSE(page);
  CHECK(page.error().IsCorruption());
  CHECK_THAT(page.error().message(),
             Catch::StartsWith("pagesByURL key http://a.example/: pagesByURL value too short"));
  const std::string md5_key = std::string(16, '\x01') + "http://b.example/";
  auto link = DecodeLinkByMd5(md5_key, "");
  REQUIRE_FALSE(link);
  CHECK_THAT(link.error().message(),
             Catch::StartsWith("linksByMD5 key 01010101010101010101010101010101 "
                               "http://b.example/: malformed link value"));
}


TEST_CASE("EncodePage and EncodeLink make the rows DecodePage and DecodeLink read back",
          "[record]") {
  Page page = Page::WithDefaults("http://a.example/x");
  page.md5 = Md5Of("a");
  page.score = 2.5f;
  for (TableId t : {TableId::kPagesByUrl, TableId::kPagesByMd5}) {
    std::string key, value;
    EncodePage(t, page, &key, &value);
    CHECK(key == (t == TableId::kPagesByUrl ? PageUrlKey(page.url)
                                            : PageMd5Key(page.md5, page.url)));
    auto back = DecodePage(t, key, value);
    REQUIRE(back);
    CHECK(back->url == page.url);
    CHECK(back->md5 == page.md5);
    CHECK(back->score == page.score);
  }
  Link link;
  link.from = Md5Of("b");
  link.url = "http://c.example/";
  link.anchor = "c";
  for (TableId t : {TableId::kLinksByMd5, TableId::kLinksByUrl}) {
    std::string key, value;
    EncodeLink(t, link, &key, &value);
    CHECK(key == (t == TableId::kLinksByMd5 ? LinkMd5Key(link.from, link.url)
                                            : LinkUrlKey(link.url, link.from)));
    auto back = DecodeLink(t, key, value);
    REQUIRE(back);
    CHECK(back->from == link.from);
    CHECK(back->url == link.url);
    CHECK(back->anchor == link.anchor);
  }
}

}  // namespace
}  // namespace webdb
