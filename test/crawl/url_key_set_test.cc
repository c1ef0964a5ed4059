#include "crawl/url_key_set.h"

#include <catch2/catch.hpp>
#include <string>

namespace crawl {
namespace {

TEST_CASE("a url key set holds each url once, across growth", "[update]") {
  UrlKeySet set;
  CHECK_FALSE(set.Contains("http://a.example/"));
  const int n = 5000;  // past several doublings of the table
  for (int i = 0; i < n; ++i) {
    INFO(i);
    REQUIRE(set.Insert("http://a.example/" + std::to_string(i)));
  }
  CHECK(set.size() == n);
  for (int i = 0; i < n; ++i) {
    INFO(i);
    CHECK(set.Contains("http://a.example/" + std::to_string(i)));
    CHECK_FALSE(set.Insert("http://a.example/" + std::to_string(i)));
    CHECK_FALSE(set.Contains("http://b.example/" + std::to_string(i)));
  }
  CHECK(set.size() == n);
}

}  // namespace
}  // namespace crawl
