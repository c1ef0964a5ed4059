// Records: the url check against its byte-by-byte definition.
#include "webdb/record.h"

#include <catch2/catch.hpp>
#include <string>

namespace webdb {
namespace {

TEST_CASE("ValidateUrl rejects exactly the control bytes, at every offset", "[record]") {
  // Every byte value at every position of urls long enough to cover the word-wise check's
  // whole words and tail, with the other bytes ordinary, high (UTF-8) or 0x7e/0x20 neighbours.
  for (char filler : {'a', '\x80', '\xff', '\x7e', ' '}) {
    for (size_t size = 1; size <= 19; ++size) {
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

}  // namespace
}  // namespace webdb
