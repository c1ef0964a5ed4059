#include "webdb/manifest.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "webdb/crc32c.h"

namespace webdb {
namespace {

std::string WithCrc(std::string text) {
  return text + fmt::format("crc {:08x}\n", crc32c::Value(text));
}

Manifest Some() {
  Manifest m;
  m.version = 9;
  for (int t = 0; t < kNumTables; ++t) {
    m.tables[t] = {TableFileName(static_cast<TableId>(t), 9), 10u + t, 100u + t, 0xabcd0000u + t};
  }
  return m;
}

std::string ErrorOf(const std::string& text) {
  auto m = Manifest::Decode(text, "/db/MANIFEST-000009");
  REQUIRE_FALSE(m);
  CHECK(m.error().IsCorruption());
  return m.error().message();
}

}  // namespace

TEST_CASE("manifest: encode and decode round-trip", "[manifest]") {
  auto back = Manifest::Decode(Some().Encode(), "/db/MANIFEST-000009");
  REQUIRE(back);
  CHECK(*back == Some());
}

TEST_CASE("manifest: a damaged text is Corruption naming the file", "[manifest]") {
  std::string text = Some().Encode();
  CHECK_THAT(ErrorOf(text.substr(0, text.size() - 1)),
             Catch::Contains("/db/MANIFEST-000009:1: not a complete webdb manifest"));
  text[20] ^= 1;
  CHECK_THAT(ErrorOf(text), Catch::Contains("checksum mismatch"));
}

// Regression: four table lines with one table twice passed the count and left a table
// without a file name; encoded again, no reader could decode the manifest.
TEST_CASE("manifest: a table named twice is refused", "[manifest]") {
  std::string text = Some().Encode();
  text = text.substr(0, text.rfind("crc "));
  const size_t links = text.find("table linksByURL");
  REQUIRE(links != std::string::npos);
  text.replace(links, text.find('\n', links) - links, "table pagesByURL x.tbl 1 2 00000003");
  CHECK_THAT(ErrorOf(WithCrc(text)), Catch::Contains("/db/MANIFEST-000009:6: table named twice"));
}

}  // namespace webdb
