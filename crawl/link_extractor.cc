#include "crawl/link_extractor.h"

#include <strings.h>

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "crawl/html_tokenizer.h"
#include "crawl/url.h"

namespace crawl {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// True if the space-separated list has token (ASCII case-insensitive).
bool HasToken(std::string_view s, std::string_view token) {
  while (!s.empty()) {
    while (!s.empty() && (IsSpace(s.front()) || s.front() == ',')) s.remove_prefix(1);
    size_t end = 0;
    while (end < s.size() && !IsSpace(s[end]) && s[end] != ',') ++end;
    if (end == token.size() && strncasecmp(s.data(), token.data(), end) == 0) return true;
    s.remove_prefix(end);
  }
  return false;
}

const std::string* Attr(const std::vector<HtmlAttribute>& attrs, std::string_view name) {
  for (const HtmlAttribute& a : attrs) {
    if (a.name == name) return &a.value;
  }
  return nullptr;
}

// A link target as found in the page, before resolution.
struct Candidate {
  std::string ref;
  std::string text;  // the anchor text, not collapsed yet
};

// Collects candidates, the first <base href> and meta robots from the tokens. The text
// of an <a> element is the character data from its start tag to its end tag or the next
// <a> start tag (which closes it, as the tree builder's adoption agency does).
class LinkSink final : public HtmlTokenSink {
 public:
  explicit LinkSink(bool honour_nofollow) : honour_nofollow_(honour_nofollow) {}

  bool WantsAttributes(std::string_view name) override {
    return name == "a" || name == "area" || name == "frame" || name == "iframe" ||
           name == "base" || name == "meta";
  }

  void StartTag(std::string_view name, const std::vector<HtmlAttribute>& attrs) override {
    if (name == "a") {
      open_ = kNone;
      const std::string* href = Attr(attrs, "href");
      if (href == nullptr || Nofollow(attrs)) return;
      open_ = candidates.size();
      candidates.push_back({*href, std::string()});
    } else if (name == "area") {
      const std::string* href = Attr(attrs, "href");
      if (href == nullptr || Nofollow(attrs)) return;
      const std::string* alt = Attr(attrs, "alt");
      candidates.push_back({*href, alt ? *alt : std::string()});
    } else if (name == "frame" || name == "iframe") {
      const std::string* src = Attr(attrs, "src");
      if (src != nullptr) candidates.push_back({*src, std::string()});
    } else if (name == "base") {
      const std::string* href = Attr(attrs, "href");
      if (href != nullptr && !base_href) base_href = *href;
    } else if (name == "meta") {
      const std::string* meta_name = Attr(attrs, "name");
      const std::string* content = Attr(attrs, "content");
      if (meta_name != nullptr && strcasecmp(meta_name->c_str(), "robots") == 0 &&
          content != nullptr && (HasToken(*content, "nofollow") || HasToken(*content, "none"))) {
        page_nofollow = true;
      }
    }
  }

  void EndTag(std::string_view name) override {
    if (name == "a") open_ = kNone;
  }

  bool WantsText() override { return open_ != kNone; }
  void Text(std::string_view text) override { candidates[open_].text.append(text); }

  std::vector<Candidate> candidates;  // in document order
  std::optional<std::string> base_href;
  bool page_nofollow = false;

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  bool Nofollow(const std::vector<HtmlAttribute>& attrs) const {
    const std::string* rel = Attr(attrs, "rel");
    return honour_nofollow_ && rel != nullptr && HasToken(*rel, "nofollow");
  }

  bool honour_nofollow_;
  size_t open_ = kNone;  // the candidate of the open <a>, if any
};

}  // namespace

std::string CollapseAnchor(std::string_view text, size_t max_bytes) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (IsSpace(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
    if (out.size() > max_bytes + 4) break;
  }
  if (out.size() > max_bytes) {
    size_t cut = max_bytes;
    // back up to the first byte of a UTF-8 sequence so none is split
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;
    out.resize(cut);
    while (!out.empty() && out.back() == ' ') out.pop_back();
  }
  return out;
}

std::vector<Outlink> ExtractLinks(std::string_view html, std::string_view page_url,
                                  const LinkExtractorOptions& options, const UrlFilter* filter) {
  LinkSink sink(options.honour_nofollow);
  TokenizeHtml(html, sink);
  std::vector<Outlink> links;
  if (sink.page_nofollow && options.honour_nofollow) return links;
  std::string base(page_url);
  if (sink.base_href) {
    auto resolved = ResolveReference(page_url, *sink.base_href);
    if (resolved) base = std::move(*resolved);
  }
  // Pages repeat their hrefs (navigation, indexes): each is resolved once.
  std::unordered_map<std::string_view, std::optional<std::string>> resolved;
  std::unordered_set<std::string_view> seen;
  for (const Candidate& c : sink.candidates) {
    if (links.size() >= options.max_outlinks) break;
    auto [it, fresh] = resolved.try_emplace(c.ref);
    if (fresh) {
      auto url = ResolveUrl(base, c.ref);
      if (url && (filter == nullptr || filter->Accepts(*url))) it->second = std::move(*url);
    }
    if (!it->second || !seen.insert(*it->second).second) continue;
    links.push_back(Outlink{*it->second, CollapseAnchor(c.text, options.max_anchor_bytes)});
  }
  return links;
}

}  // namespace crawl
