#include "crawl/html_char_ref.h"

#include <algorithm>
#include <iterator>

namespace crawl {

namespace {

struct NamedRef {
  const char* name;
  const char* value;
};

constexpr NamedRef kNamedRefs[] = {
#include "crawl/html_entities.inc"
};
constexpr size_t kLongestName = 32;

bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Code points 0x80-0x9F of a numeric reference mean what windows-1252 has there.
constexpr char32_t kC1Replacements[32] = {
    0x20AC, 0x81,   0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x8D,   0x017D, 0x8F,   0x90,   0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,   0x017E, 0x0178};

size_t DecodeNumeric(std::string_view text, size_t at, std::string* out) {
  size_t i = at + 2;  // after "&#"
  bool hex = i < text.size() && (text[i] == 'x' || text[i] == 'X');
  if (hex) ++i;
  size_t digits_start = i;
  uint64_t value = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    int d = (c >= '0' && c <= '9') ? c - '0'
            : (hex && c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (hex && c >= 'A' && c <= 'F') ? c - 'A' + 10
                                            : -1;
    if (d < 0) break;
    value = std::min<uint64_t>(value * (hex ? 16 : 10) + d, 0x110000);
  }
  if (i == digits_start) {  // "&#" or "&#x" without digits: not a reference
    out->push_back('&');
    return 1;
  }
  if (i < text.size() && text[i] == ';') ++i;
  char32_t cp = static_cast<char32_t>(value);
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    cp = 0xFFFD;
  } else if (cp >= 0x80 && cp <= 0x9F) {
    cp = kC1Replacements[cp - 0x80];
  }
  AppendUtf8(cp, out);
  return i - at;
}

}  // namespace

size_t Utf8Length(std::string_view s, size_t i, size_t* bad) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
  *bad = 1;
  if (n == 0) return 0;
  for (size_t k = 1; k < n; ++k) {
    if (i + k >= s.size()) return 0;
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    unsigned char lo = 0x80, hi = 0xBF;
    if (k == 1 && c == 0xE0) lo = 0xA0;
    if (k == 1 && c == 0xED) hi = 0x9F;
    if (k == 1 && c == 0xF0) lo = 0x90;
    if (k == 1 && c == 0xF4) hi = 0x8F;
    if (d < lo || d > hi) return 0;
    *bad = k + 1;
  }
  return n;
}

bool IsValidUtf8(std::string_view s) {
  size_t bad = 0;
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = Utf8Length(s, i, &bad);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t DecodeCharRef(std::string_view text, size_t at, bool in_attribute, std::string* out) {
  if (at + 1 < text.size() && text[at + 1] == '#') return DecodeNumeric(text, at, out);
  // The longest name in the table that the text continues with: names are ASCII
  // alphanumerics, some with a final ';'.
  size_t end = at + 1;
  while (end < text.size() && end - at <= kLongestName && IsAlnum(text[end])) ++end;
  if (end < text.size() && text[end] == ';') ++end;
  auto less = [](const NamedRef& r, std::string_view n) { return std::string_view(r.name) < n; };
  for (size_t len = end - at - 1; len > 0; --len) {
    std::string_view name = text.substr(at + 1, len);
    const NamedRef* it = std::lower_bound(std::begin(kNamedRefs), std::end(kNamedRefs), name, less);
    if (it == std::end(kNamedRefs) || name != it->name) continue;
    size_t after = at + 1 + len;
    if (in_attribute && name.back() != ';' && after < text.size() &&
        (text[after] == '=' || IsAlnum(text[after]))) {
      break;  // "&copy=..." in a URL stays as it is
    }
    out->append(it->value);
    return 1 + len;
  }
  out->push_back('&');
  return 1;
}

}  // namespace crawl
