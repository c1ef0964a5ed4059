#include "crawl/html_char_ref.h"

#include <catch2/catch.hpp>

namespace crawl {
namespace {

// Decodes the reference at the start of text: (what it stands for, bytes taken).
std::pair<std::string, size_t> Decode(std::string_view text, bool in_attribute = false) {
  std::string out;
  size_t n = DecodeCharRef(text, 0, in_attribute, &out);
  return {out, n};
}

TEST_CASE("named references: longest match, with or without the semicolon", "[charref]") {
  CHECK(Decode("&amp;x") == std::pair<std::string, size_t>{"&", 5});
  CHECK(Decode("&ampx") == std::pair<std::string, size_t>{"&", 4});  // legacy name
  CHECK(Decode("&notin;") == std::pair<std::string, size_t>{"\u2209", 7});
  CHECK(Decode("&notit;") == std::pair<std::string, size_t>{"\u00ac", 4});  // "&not" + "it;"
  CHECK(Decode("&CounterClockwiseContourIntegral;").first == "\u2233");
  CHECK(Decode("&nbsp;").first == "\u00a0");
  CHECK(Decode("&NotEqualTilde;").first == "\u2242\u0338");  // two code points
  CHECK(Decode("&bogus;") == std::pair<std::string, size_t>{"&", 1});
  CHECK(Decode("&") == std::pair<std::string, size_t>{"&", 1});
  CHECK(Decode("&;") == std::pair<std::string, size_t>{"&", 1});
}

TEST_CASE("in attributes a legacy name before '=' or an alphanumeric stays", "[charref]") {
  CHECK(Decode("&copy=2", true) == std::pair<std::string, size_t>{"&", 1});
  CHECK(Decode("&copyx", true) == std::pair<std::string, size_t>{"&", 1});
  CHECK(Decode("&copy;=2", true) == std::pair<std::string, size_t>{"\u00a9", 6});
  CHECK(Decode("&copy-", true) == std::pair<std::string, size_t>{"\u00a9", 5});
  CHECK(Decode("&copy=2", false) == std::pair<std::string, size_t>{"\u00a9", 5});
}

TEST_CASE("numeric references and their replacements", "[charref]") {
  CHECK(Decode("&#65;") == std::pair<std::string, size_t>{"A", 5});
  CHECK(Decode("&#x41x") == std::pair<std::string, size_t>{"A", 5});  // no ';'
  CHECK(Decode("&#X1F600;").first == "\U0001F600");
  CHECK(Decode("&#0;").first == "\uFFFD");
  CHECK(Decode("&#xD800;").first == "\uFFFD");
  CHECK(Decode("&#x110000;").first == "\uFFFD");
  CHECK(Decode("&#99999999999999999999;").first == "\uFFFD");
  CHECK(Decode("&#128;").first == "\u20AC");  // windows-1252
  CHECK(Decode("&#x9F;").first == "\u0178");
  CHECK(Decode("&#x81;").first == "\u0081");  // no windows-1252 character there
  CHECK(Decode("&#;") == std::pair<std::string, size_t>{"&", 1});
  CHECK(Decode("&#x;") == std::pair<std::string, size_t>{"&", 1});
}

}  // namespace
}  // namespace crawl
