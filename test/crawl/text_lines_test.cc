#include "crawl/text_lines.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace crawl {
namespace {

struct Line {
  std::string text;
  uint64_t number;
  bool operator==(const Line&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Line& l) {
  return os << l.number << ":'" << l.text << "'";
}

// The lines of text fed in pieces of piece bytes.
std::vector<Line> LinesOf(std::string_view text, size_t piece) {
  std::vector<Line> out;
  auto fn = [&](std::string_view line, uint64_t n) {
    out.push_back({std::string(line), n});
    return Status::OK();
  };
  TextLines lines;
  for (size_t i = 0; i < text.size(); i += piece) {
    REQUIRE(lines.Add(text.substr(i, piece), fn).ok());
  }
  REQUIRE(lines.Finish(fn).ok());
  return out;
}

TEST_CASE("text lines end in LF, CRLF or a lone CR, in pieces of any size", "[urllist]") {
  const std::string text = "\xEF\xBB\xBF" "a\r\nb\rc\n\r\nd\r\re";
  const std::vector<Line> want = {{"a", 1}, {"b", 2}, {"c", 3}, {"", 4}, {"d", 5}, {"", 6},
                                  {"e", 7}};
  for (size_t piece = 1; piece <= text.size(); ++piece) {
    INFO(piece);
    CHECK(LinesOf(text, piece) == want);
  }
  CHECK(LinesOf("x\n", 8) == std::vector<Line>{{"x", 1}});
  CHECK(LinesOf("", 8).empty());
  CHECK(LinesOf("a\xEF\xBB\xBF\n\xEF\xBB\xBF", 8) ==
        std::vector<Line>{{"a\xEF\xBB\xBF", 1}, {"\xEF\xBB\xBF", 2}});  // a BOM only first
}

TEST_CASE("text lines: an error of the callback stops the splitting", "[urllist]") {
  int calls = 0;
  Status st = TextLines::Split("a\nb\nc", [&](std::string_view, uint64_t) {
    ++calls;
    return Status::IOError("full");
  });
  CHECK(st.IsIOError());
  CHECK(calls == 1);
}

}  // namespace
}  // namespace crawl
