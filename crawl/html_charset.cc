#include "crawl/html_charset.h"

#include <optional>
#include <set>

#include "crawl/html_char_ref.h"

namespace crawl {
namespace {

constexpr size_t kPrescanBytes = 1024;

bool IsSpace(char c) { return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool StartsWithNoCase(std::string_view text, std::string_view lower_prefix) {
  if (text.size() < lower_prefix.size()) return false;
  for (size_t i = 0; i < lower_prefix.size(); ++i) {
    if (Lower(text[i]) != lower_prefix[i]) return false;
  }
  return true;
}

// The standard's "algorithm for extracting a character encoding from a meta element",
// on the value of a content attribute: "text/html; charset=Shift_JIS".
const Encoding* CharsetInMetaContent(std::string_view s) {
  size_t pos = 0;
  while (true) {
    size_t at = std::string_view::npos;
    for (size_t i = pos; i + 7 <= s.size(); ++i) {
      if (StartsWithNoCase(s.substr(i), "charset")) {
        at = i;
        break;
      }
    }
    if (at == std::string_view::npos) return nullptr;
    pos = at + 7;
    while (pos < s.size() && IsSpace(s[pos])) ++pos;
    if (pos < s.size() && s[pos] == '=') break;
  }
  ++pos;
  while (pos < s.size() && IsSpace(s[pos])) ++pos;
  if (pos == s.size()) return nullptr;
  if (s[pos] == '"' || s[pos] == '\'') {
    const size_t close = s.find(s[pos], pos + 1);
    if (close == std::string_view::npos) return nullptr;
    return EncodingForLabel(s.substr(pos + 1, close - pos - 1));
  }
  size_t end = pos;
  while (end < s.size() && !IsSpace(s[end]) && s[end] != ';') ++end;
  return EncodingForLabel(s.substr(pos, end - pos));
}

// The standard's prescan (section 13.2.3.2, "prescan a byte stream to determine its
// encoding") over the first kPrescanBytes of a page. Running out of bytes ends it with
// no answer, as a browser's prescan ends when it has read 1024 bytes.
class Prescan {
 public:
  explicit Prescan(std::string_view head) : s_(head.substr(0, kPrescanBytes)) {}

  const Encoding* Run() {
    while (pos_ < s_.size()) {
      const std::string_view rest = s_.substr(pos_);
      if (rest.starts_with("<!--")) {
        const size_t end = s_.find("-->", pos_ + 2);
        if (end == std::string_view::npos) return nullptr;
        pos_ = end + 3;
        continue;
      }
      if (StartsWithNoCase(rest, "<meta") && rest.size() > 5 &&
          (IsSpace(rest[5]) || rest[5] == '/')) {
        pos_ += 5;
        std::optional<const Encoding*> found = Meta();
        if (!found) return nullptr;  // out of bytes
        if (*found != nullptr) return *found;
      } else if (rest.size() >= 2 && rest[0] == '<' &&
                 (IsAlpha(rest[1]) || (rest[1] == '/' && rest.size() >= 3 && IsAlpha(rest[2])))) {
        while (pos_ < s_.size() && !IsSpace(s_[pos_]) && s_[pos_] != '>') ++pos_;
        Attribute attribute;
        int got;
        while ((got = GetAttribute(&attribute)) > 0) {
        }
        if (got < 0) return nullptr;
      } else if (rest.starts_with("<!") || rest.starts_with("</") || rest.starts_with("<?")) {
        const size_t end = s_.find('>', pos_ + 2);
        if (end == std::string_view::npos) return nullptr;
        pos_ = end;
      }
      ++pos_;  // "next byte"
    }
    return nullptr;
  }

 private:
  struct Attribute {
    std::string name, value;
  };

  // The attributes of a <meta> after its name: the encoding it declares, nullptr if it
  // declares none, nullopt if the bytes ran out.
  std::optional<const Encoding*> Meta() {
    std::set<std::string> seen;
    bool got_pragma = false;
    std::optional<bool> need_pragma;
    const Encoding* charset = nullptr;
    Attribute a;
    int got;
    while ((got = GetAttribute(&a)) > 0) {
      if (!seen.insert(a.name).second) continue;
      if (a.name == "http-equiv") {
        if (a.value == "content-type") got_pragma = true;
      } else if (a.name == "content") {
        if (charset == nullptr) {
          if (const Encoding* e = CharsetInMetaContent(a.value)) {
            charset = e;
            need_pragma = true;
          }
        }
      } else if (a.name == "charset") {
        charset = EncodingForLabel(a.value);
        need_pragma = false;
      }
    }
    if (got < 0) return std::nullopt;
    if (!need_pragma || (*need_pragma && !got_pragma) || charset == nullptr) return nullptr;
    if (charset->kind == Encoding::Kind::kUtf16) return EncodingForLabel("utf-8");
    if (charset->kind == Encoding::Kind::kUserDefined) return EncodingForLabel("windows-1252");
    return charset;
  }

  // The standard's "get an attribute": 1 with *a filled, 0 at the end of the tag (pos_
  // on its '>'), -1 when the bytes run out.
  int GetAttribute(Attribute* a) {
    a->name.clear();
    a->value.clear();
    while (pos_ < s_.size() && (IsSpace(s_[pos_]) || s_[pos_] == '/')) ++pos_;
    if (pos_ == s_.size()) return -1;
    if (s_[pos_] == '>') return 0;
    // The name.
    while (true) {
      if (pos_ == s_.size()) return -1;
      const char c = s_[pos_];
      if (c == '=' && !a->name.empty()) break;
      if (IsSpace(c)) {
        while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
        if (pos_ == s_.size()) return -1;
        if (s_[pos_] != '=') return 1;
        break;
      }
      if (c == '/' || c == '>') return 1;
      a->name.push_back(Lower(c));
      ++pos_;
    }
    ++pos_;  // the '='
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
    if (pos_ == s_.size()) return -1;
    // The value.
    const char first = s_[pos_];
    if (first == '"' || first == '\'') {
      while (true) {
        if (++pos_ == s_.size()) return -1;
        if (s_[pos_] == first) {
          ++pos_;
          return 1;
        }
        a->value.push_back(Lower(s_[pos_]));
      }
    }
    if (first == '>') return 1;
    while (true) {
      if (pos_ == s_.size()) return -1;
      const char c = s_[pos_];
      if (IsSpace(c) || c == '>') return 1;
      a->value.push_back(Lower(c));
      ++pos_;
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// Whether text needs no decoding from e: e is UTF-8, or text is ASCII only and e reads
// ASCII as ASCII (ISO-2022-JP: without an escape sequence).
bool PassesAsIs(const Encoding& e, std::string_view text) {
  if (e.kind == Encoding::Kind::kUtf8) return true;
  if (!e.AsciiCompatible()) return false;
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
    if (c == '\x1b' && e.kind == Encoding::Kind::kEscapes) return false;
  }
  return true;
}

HtmlText Decoded(std::string_view body, const Encoding* e, HtmlText::Source source,
                 std::string* scratch) {
  if (PassesAsIs(*e, body)) return {body, e, source};
  *scratch = DecodeToUtf8(*e, body);
  return {*scratch, e, source};
}

}  // namespace

const Encoding* ContentTypeCharset(std::string_view content_type) {
  // type/subtype *( ";" name "=" ( token / quoted-string ) ), RFC 9110 section 8.3.1.
  size_t semi = content_type.find(';');
  while (semi != std::string_view::npos) {
    std::string_view rest = content_type.substr(semi + 1);
    while (!rest.empty() && IsSpace(rest.front())) rest.remove_prefix(1);
    const size_t eq = rest.find('=');
    const size_t next_semi = rest.find(';');
    if (eq != std::string_view::npos && eq < next_semi) {
      std::string_view name = rest.substr(0, eq);
      while (!name.empty() && IsSpace(name.back())) name.remove_suffix(1);
      std::string_view value = rest.substr(eq + 1);
      if (!value.empty() && value.front() == '"') {
        const size_t close = value.find('"', 1);
        value = value.substr(1, close == std::string_view::npos ? close : close - 1);
      } else {
        value = value.substr(0, value.find(';'));
      }
      if (name.size() == 7 && StartsWithNoCase(name, "charset")) return EncodingForLabel(value);
    }
    semi = content_type.find(';', semi + 1);
  }
  return nullptr;
}

const Encoding* PrescanMetaCharset(std::string_view head) { return Prescan(head).Run(); }

HtmlText DecodeHtml(std::string_view body, std::string_view content_type, std::string* scratch) {
  using Source = HtmlText::Source;
  if (body.starts_with("\xEF\xBB\xBF")) {
    return {body.substr(3), EncodingForLabel("utf-8"), Source::kBom};
  }
  if (body.starts_with("\xFE\xFF")) {
    return Decoded(body.substr(2), EncodingForLabel("utf-16be"), Source::kBom, scratch);
  }
  if (body.starts_with("\xFF\xFE")) {
    return Decoded(body.substr(2), EncodingForLabel("utf-16le"), Source::kBom, scratch);
  }
  if (const Encoding* e = ContentTypeCharset(content_type)) {
    return Decoded(body, e, Source::kHttp, scratch);
  }
  if (const Encoding* e = PrescanMetaCharset(body)) {
    return Decoded(body, e, Source::kMeta, scratch);
  }
  if (IsValidUtf8(body)) return {body, EncodingForLabel("utf-8"), Source::kDetected};
  return Decoded(body, EncodingForLabel("windows-1252"), Source::kDefault, scratch);
}

}  // namespace crawl
