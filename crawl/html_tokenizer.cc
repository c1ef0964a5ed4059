#include "crawl/html_tokenizer.h"

#include <cstring>

#include "crawl/html_char_ref.h"

namespace crawl {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// Appends s to *out as the input stream would read it: CR LF and CR as LF, invalid
// UTF-8 as U+FFFD, NUL as U+FFFD (keep_nul) or dropped.
void AppendClean(std::string_view s, bool keep_nul, std::string* out) {
  size_t i = 0;
  while (i < s.size()) {
    size_t run = i;
    while (run < s.size() && static_cast<unsigned char>(s[run]) - 1u < 0x7Fu && s[run] != '\r') {
      ++run;
    }
    out->append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    char c = s[i];
    if (c == '\r') {
      out->push_back('\n');
      i += (i + 1 < s.size() && s[i + 1] == '\n') ? 2 : 1;
    } else if (c == '\0') {
      if (keep_nul) AppendUtf8(0xFFFD, out);
      ++i;
    } else {
      size_t bad = 1;
      size_t n = Utf8Length(s, i, &bad);
      if (n > 0) {
        out->append(s.data() + i, n);
        i += n;
      } else {
        AppendUtf8(0xFFFD, out);
        i += bad;
      }
    }
  }
}

// Appends s with character references decoded, then cleaned as AppendClean.
void AppendDecoded(std::string_view s, bool in_attribute, bool keep_nul, std::string* out,
                   std::string* scratch) {
  if (s.find('&') == std::string_view::npos) return AppendClean(s, keep_nul, out);
  scratch->clear();
  size_t i = 0;
  while (i < s.size()) {
    size_t amp = s.find('&', i);
    if (amp == std::string_view::npos) amp = s.size();
    scratch->append(s.data() + i, amp - i);
    if (amp == s.size()) break;
    i = amp + DecodeCharRef(s, amp, in_attribute, scratch);
  }
  AppendClean(*scratch, keep_nul, out);
}

bool StartsWithNoCase(std::string_view s, size_t at, std::string_view prefix) {
  if (s.size() - at < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (Lower(s[at + i]) != prefix[i]) return false;
  }
  return true;
}

// HTML elements whose start tag ends foreign (svg, math) content.
bool BreaksOutOfForeign(std::string_view name, const std::vector<HtmlAttribute>& attrs) {
  static constexpr std::string_view kNames[] = {
      "b",  "big", "blockquote", "body", "br",   "center", "code",    "dd",    "div",
      "dl", "dt",  "em",         "embed", "h1",  "h2",     "h3",      "h4",    "h5",
      "h6", "head", "hr",        "i",    "img",  "li",     "listing", "menu",  "meta",
      "nobr", "ol", "p",         "pre",  "ruby", "s",      "small",   "span",  "strong",
      "strike", "sub", "sup",    "table", "tt",  "u",      "ul",      "var"};
  for (std::string_view n : kNames) {
    if (n == name) return true;
  }
  if (name != "font") return false;
  for (const HtmlAttribute& a : attrs) {
    if (a.name == "color" || a.name == "face" || a.name == "size") return true;
  }
  return false;
}

class Tokenizer {
 public:
  Tokenizer(std::string_view in, HtmlTokenSink& sink) : in_(in), sink_(sink) {}

  void Run() {
    while (pos_ < in_.size()) {
      const void* lt = std::memchr(in_.data() + pos_, '<', in_.size() - pos_);
      size_t end = lt ? static_cast<size_t>(static_cast<const char*>(lt) - in_.data())
                      : in_.size();
      Text(pos_, end, TextMode::kData);
      pos_ = end;
      if (pos_ < in_.size()) Markup();
    }
  }

 private:
  enum class TagEnd { kEmitted, kDropped };
  // How character data is read: in the data state references are decoded and NULs
  // dropped (the tree builder ignores them in body); in RCDATA references are decoded;
  // elsewhere (RAWTEXT, script data, PLAINTEXT, CDATA) neither. NUL is U+FFFD but in data.
  enum class TextMode { kData, kRcdata, kRaw };

  void Text(size_t begin, size_t end, TextMode mode) {
    if (begin >= end || !sink_.WantsText()) return;
    text_.clear();
    std::string_view s = in_.substr(begin, end - begin);
    bool keep_nul = mode != TextMode::kData;
    if (mode == TextMode::kRaw) {
      AppendClean(s, keep_nul, &text_);
    } else {
      AppendDecoded(s, false, keep_nul, &text_, &scratch_);
    }
    if (!text_.empty()) sink_.Text(text_);
  }

  // in_[pos_] is '<'.
  void Markup() {
    size_t p = pos_ + 1;
    char c = p < in_.size() ? in_[p] : '\0';
    if (p < in_.size() && IsAlpha(c)) {
      pos_ = p;
      return StartTag();
    }
    if (c == '/' && p + 1 < in_.size()) {
      char d = in_[p + 1];
      if (IsAlpha(d)) {
        pos_ = p + 1;
        return EndTag();
      }
      if (d == '>') {  // "</>" is nothing
        pos_ = p + 2;
        return;
      }
      return SkipTo('>', p + 1);  // bogus comment
    }
    if (c == '!' && p < in_.size()) return Declaration(p + 1);
    if (c == '?' && p < in_.size()) return SkipTo('>', p + 1);
    // A '<' that starts nothing, or "</" at the end: character data.
    size_t end = (c == '/') ? p + 1 : p;
    Text(pos_, end, TextMode::kData);
    pos_ = end;
  }

  // After "<!": a comment, a DOCTYPE, CDATA in foreign content, or a bogus comment.
  void Declaration(size_t p) {
    if (in_.compare(p, 2, "--") == 0) return Comment(p + 2);
    if (foreign_depth_ > 0 && in_.compare(p, 7, "[CDATA[") == 0) {
      size_t end = in_.find("]]>", p + 7);
      size_t stop = end == std::string_view::npos ? in_.size() : end;
      Text(p + 7, stop, TextMode::kRaw);
      pos_ = end == std::string_view::npos ? in_.size() : end + 3;
      return;
    }
    SkipTo('>', p);  // DOCTYPE ('>' ends it even inside quotes) or bogus comment
  }

  void Comment(size_t p) {
    if (p < in_.size() && in_[p] == '>') {  // "<!-->"
      pos_ = p + 1;
      return;
    }
    if (in_.compare(p, 2, "->") == 0) {  // "<!--->"
      pos_ = p + 2;
      return;
    }
    size_t end = in_.size();
    for (size_t i = in_.find("--", p); i != std::string_view::npos; i = in_.find("--", i + 1)) {
      size_t j = i + 2;
      while (j < in_.size() && in_[j] == '-') ++j;  // "--->" ends too
      if (j < in_.size() && in_[j] == '>') {
        end = j + 1;
        break;
      }
      if (in_.compare(j, 2, "!>") == 0) {
        end = j + 2;
        break;
      }
    }
    pos_ = end;
  }

  void SkipTo(char c, size_t from) {
    size_t end = in_.find(c, from);
    pos_ = end == std::string_view::npos ? in_.size() : end + 1;
  }

  // pos_ at the first letter of the name; reads the name into name_.
  void TagName() {
    name_.clear();
    while (pos_ < in_.size() && !IsSpace(in_[pos_]) && in_[pos_] != '/' && in_[pos_] != '>') {
      char c = in_[pos_++];
      if (c == '\0') {
        AppendUtf8(0xFFFD, &name_);
      } else {
        name_.push_back(Lower(c));
      }
    }
  }

  void StartTag() {
    TagName();
    // font's attributes decide whether it breaks out of foreign content.
    bool want = sink_.WantsAttributes(name_) || (foreign_depth_ > 0 && name_ == "font");
    attrs_.clear();
    if (Attributes(want) == TagEnd::kDropped) return;
    sink_.StartTag(name_, attrs_);
    AfterStartTag();
  }

  void EndTag() {
    TagName();
    attrs_.clear();
    if (Attributes(false) == TagEnd::kDropped) return;
    sink_.EndTag(name_);
    if (foreign_depth_ > 0 && (name_ == "svg" || name_ == "math")) --foreign_depth_;
  }

  // The tree builder's choice of tokenizer state after a start tag, and foreign content.
  void AfterStartTag() {
    if (foreign_depth_ > 0) {
      if (BreaksOutOfForeign(name_, attrs_)) {
        foreign_depth_ = 0;
      } else {
        if ((name_ == "svg" || name_ == "math") && !self_closing_) ++foreign_depth_;
        return;
      }
    }
    if (name_ == "svg" || name_ == "math") {
      if (!self_closing_) foreign_depth_ = 1;
    } else if (name_ == "title" || name_ == "textarea") {
      RawText(TextMode::kRcdata);
    } else if (name_ == "style" || name_ == "xmp" || name_ == "iframe" || name_ == "noembed" ||
               name_ == "noframes") {
      RawText(TextMode::kRaw);
    } else if (name_ == "script") {
      ScriptData();
    } else if (name_ == "plaintext") {
      Text(pos_, in_.size(), TextMode::kRaw);
      pos_ = in_.size();
    }
  }

  // True if "</" + name_ + a delimiter starts at i (an appropriate end tag).
  bool EndTagOf(std::string_view name, size_t i) const {
    if (in_.compare(i, 2, "</") != 0 || !StartsWithNoCase(in_, i + 2, name)) return false;
    size_t j = i + 2 + name.size();
    return j < in_.size() && (IsSpace(in_[j]) || in_[j] == '/' || in_[j] == '>');
  }

  // RCDATA or RAWTEXT up to the end tag of name_, which is left to Run().
  void RawText(TextMode mode) {
    std::string name = name_;
    size_t i = pos_;
    while ((i = in_.find("</", i)) != std::string_view::npos && !EndTagOf(name, i)) ++i;
    size_t end = i == std::string_view::npos ? in_.size() : i;
    Text(pos_, end, mode);
    pos_ = end;
  }

  // Script data and its escaped and double-escaped states, up to "</script".
  void ScriptData() {
    enum { kData, kEscaped, kDoubleEscaped } mode = kData;
    int dashes = 0;
    size_t i = pos_;
    for (; i < in_.size(); ++i) {
      char c = in_[i];
      if (c == '-') {
        ++dashes;
        continue;
      }
      if (c == '>' && dashes >= 2 && mode != kData) mode = kData;
      dashes = 0;
      if (c != '<') continue;
      if (mode != kDoubleEscaped && EndTagOf("script", i)) break;
      if (mode == kData && in_.compare(i, 4, "<!--") == 0) {
        mode = kEscaped;
        dashes = 2;
        i += 3;
      } else if (mode == kEscaped && IsScriptTag(i + 1)) {
        mode = kDoubleEscaped;
        i += 6;
      } else if (mode == kDoubleEscaped && in_.compare(i, 2, "</") == 0 && IsScriptTag(i + 2)) {
        mode = kEscaped;
        i += 7;
      }
    }
    Text(pos_, i, TextMode::kRaw);
    pos_ = i;
  }

  // "script" + a delimiter at i.
  bool IsScriptTag(size_t i) const {
    if (!StartsWithNoCase(in_, i, "script")) return false;
    return i + 6 < in_.size() && (IsSpace(in_[i + 6]) || in_[i + 6] == '/' || in_[i + 6] == '>');
  }

  // From after the tag name to after '>'; attributes collected into attrs_ when want.
  TagEnd Attributes(bool want) {
    self_closing_ = false;
    while (true) {
      while (pos_ < in_.size() && (IsSpace(in_[pos_]) || in_[pos_] == '/')) {
        if (in_[pos_] == '/' && pos_ + 1 < in_.size() && in_[pos_ + 1] == '>') break;
        ++pos_;
      }
      if (pos_ >= in_.size()) return TagEnd::kDropped;
      if (in_[pos_] == '/') {  // "/>"
        pos_ += 2;
        self_closing_ = true;
        return TagEnd::kEmitted;
      }
      if (in_[pos_] == '>') {
        ++pos_;
        return TagEnd::kEmitted;
      }
      if (Attribute(want) == TagEnd::kDropped) return TagEnd::kDropped;
    }
  }

  // One attribute: name, and optionally '=' and a value.
  TagEnd Attribute(bool want) {
    size_t name_start = pos_++;  // the first character may be '='
    while (pos_ < in_.size() && !IsSpace(in_[pos_]) && in_[pos_] != '/' && in_[pos_] != '>' &&
           in_[pos_] != '=') {
      ++pos_;
    }
    std::string_view name = in_.substr(name_start, pos_ - name_start);
    while (pos_ < in_.size() && IsSpace(in_[pos_])) ++pos_;
    std::string_view value;
    bool have_value = false;
    if (pos_ < in_.size() && in_[pos_] == '=') {
      ++pos_;
      while (pos_ < in_.size() && IsSpace(in_[pos_])) ++pos_;
      if (pos_ >= in_.size()) return TagEnd::kDropped;
      char q = in_[pos_];
      if (q == '"' || q == '\'') {
        size_t end = in_.find(q, pos_ + 1);
        if (end == std::string_view::npos) return TagEnd::kDropped;
        value = in_.substr(pos_ + 1, end - pos_ - 1);
        pos_ = end + 1;
      } else if (q != '>') {
        size_t start = pos_;
        while (pos_ < in_.size() && !IsSpace(in_[pos_]) && in_[pos_] != '>') ++pos_;
        if (pos_ >= in_.size()) return TagEnd::kDropped;
        value = in_.substr(start, pos_ - start);
      }
      have_value = true;
    }
    if (want) AddAttribute(name, value, have_value);
    return TagEnd::kEmitted;
  }

  void AddAttribute(std::string_view raw_name, std::string_view raw_value, bool have_value) {
    attr_name_.clear();
    for (char c : raw_name) attr_name_.push_back(Lower(c));
    std::string name;
    AppendClean(attr_name_, true, &name);
    for (const HtmlAttribute& a : attrs_) {
      if (a.name == name) return;  // the first one wins
    }
    HtmlAttribute attr{std::move(name), std::string()};
    if (have_value) AppendDecoded(raw_value, true, true, &attr.value, &scratch_);
    attrs_.push_back(std::move(attr));
  }

  std::string_view in_;
  HtmlTokenSink& sink_;
  size_t pos_ = 0;
  int foreign_depth_ = 0;
  bool self_closing_ = false;  // of the last tag
  std::string name_;
  std::string attr_name_;
  std::vector<HtmlAttribute> attrs_;
  std::string text_;
  std::string scratch_;
};

}  // namespace

void TokenizeHtml(std::string_view html, HtmlTokenSink& sink) { Tokenizer(html, sink).Run(); }

}  // namespace crawl
