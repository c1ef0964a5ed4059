// HTML character references (WHATWG HTML standard, 13.2.5.72-80, "Character reference
// state" and after): `&amp;`, `&#38;`, `&#x26;`, and the legacy names without `;`.
// The named table (crawl/html_entities.inc) is generated from the standard's list by
// scripts/gen-html-entities.py. Also the UTF-8 reading and writing that references, the
// tokenizer and the charset detection (crawl/html_charset.h) share.
//
// Plain functions on values; thread-safe.
#ifndef CRAWL_HTML_CHAR_REF_H_
#define CRAWL_HTML_CHAR_REF_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace crawl {

// text[at] is '&'. Appends what the reference there stands for (UTF-8) to *out and
// returns the number of bytes of text it took, or appends "&" and returns 1 when there
// is no reference there. in_attribute applies the attribute-value rule: a named
// reference without ';' followed by '=' or an ASCII alphanumeric is left as it is.
size_t DecodeCharRef(std::string_view text, size_t at, bool in_attribute, std::string* out);

// The length of the valid UTF-8 sequence at s[i] (a lead byte of 0x80 or more), or 0 if
// there is none; *bad is then the length of the standard's "maximal subpart" of the
// invalid sequence, which one U+FFFD replaces.
size_t Utf8Length(std::string_view s, size_t i, size_t* bad);

// Whether s is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool IsValidUtf8(std::string_view s);

// Appends code point cp to *out as UTF-8. REQUIRES: cp <= 0x10FFFF.
void AppendUtf8(char32_t cp, std::string* out);

}  // namespace crawl

#endif  // CRAWL_HTML_CHAR_REF_H_
