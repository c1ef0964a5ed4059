#include "crawl/domain.h"

#include <catch2/catch.hpp>

#include "webdb/table/record.h"

namespace crawl {
namespace {

TEST_CASE("registrable domains from the public-suffix list", "[domain]") {
  CHECK(RegistrableDomain("www.example.com") == "example.com");
  CHECK(RegistrableDomain("a.b.example.co.uk") == "example.co.uk");
  CHECK(RegistrableDomain("example.com:8080") == "example.com");
  CHECK(RegistrableDomain("127.0.0.1") == "127.0.0.1");
  CHECK(RegistrableDomain("localhost") == "localhost");
  CHECK(RegistrableDomain("co.uk") == "co.uk");
  CHECK(RegistrableDomain("[::1]:80") == "[::1]:80");
}

TEST_CASE("domain ids: same registrable domain, same id", "[domain]") {
  CHECK(DomainIdOfUrl("http://www.example.com/a") == DomainIdOfUrl("https://example.com:81/"));
  CHECK(DomainIdOfUrl("http://www.example.com/") != DomainIdOfUrl("http://www.example.org/"));
  webdb::Md5 md5 = webdb::Md5Of("example.com");
  uint64_t want = 0;
  for (int i = 7; i >= 0; --i) want = want << 8 | md5[i];
  CHECK(DomainIdOfUrl("http://example.com/") == static_cast<int64_t>(want));
}

}  // namespace
}  // namespace crawl
