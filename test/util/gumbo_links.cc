#include "test/util/gumbo_links.h"

#include <gumbo.h>
#include <strings.h>

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "crawl/url.h"

namespace testutil {

using crawl::CollapseAnchor;
using crawl::LinkExtractorOptions;
using crawl::Outlink;
using crawl::ResolveReference;
using crawl::ResolveUrl;
using crawl::UrlFilter;

namespace {

// A bump allocator for one gumbo parse: the whole parse tree is dropped at once by
// Reset() instead of node by node. One per thread; it
// keeps one block of the size the last parse needed (at most kMaxKeptBytes) for the next.
class ParseArena {
 public:
  static void* Allocate(void* arena, size_t n) { return static_cast<ParseArena*>(arena)->Get(n); }
  static void Deallocate(void*, void*) {}

  void Reset() {
    size_t want = std::clamp(total_, kMinBlock, kMaxKeptBytes);
    if (blocks_.size() != 1 || block_size_ != want) {
      blocks_.clear();
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(want));
      block_size_ = want;
    }
    used_ = 0;
    total_ = 0;
  }

 private:
  static constexpr size_t kMinBlock = size_t{256} << 10;
  static constexpr size_t kMaxKeptBytes = size_t{16} << 20;

  void* Get(size_t n) {
    n = (n + 15) & ~size_t{15};
    total_ += n;
    if (blocks_.empty() || used_ + n > block_size_) {
      block_size_ = std::max(n, std::max(block_size_ * 2, kMinBlock));
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(block_size_));
      used_ = 0;
    }
    void* p = blocks_.back().get() + used_;
    used_ += n;
    return p;
  }

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_size_ = 0;
  size_t used_ = 0;
  size_t total_ = 0;
};

// Parses html into the thread's arena; the tree lives until the next call on this thread.
const GumboOutput* Parse(std::string_view html) {
  thread_local ParseArena arena;
  arena.Reset();
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &ParseArena::Allocate;
  options.deallocator = &ParseArena::Deallocate;
  options.userdata = &arena;
  return gumbo_parse_with_options(&options, html.data(), html.size());
}

const char* Attr(const GumboNode* node, const char* name) {
  const GumboAttribute* attr = gumbo_get_attribute(&node->v.element.attributes, name);
  return attr ? attr->value : nullptr;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// True if the space-separated list has token (ASCII case-insensitive).
bool HasToken(const char* list, std::string_view token) {
  if (list == nullptr) return false;
  std::string_view s(list);
  while (!s.empty()) {
    while (!s.empty() && (IsSpace(s.front()) || s.front() == ',')) s.remove_prefix(1);
    size_t end = 0;
    while (end < s.size() && !IsSpace(s[end]) && s[end] != ',') ++end;
    if (end == token.size() && strncasecmp(s.data(), token.data(), end) == 0) return true;
    s.remove_prefix(end);
  }
  return false;
}

// Calls fn on every element node in document order.
template <typename Fn>
void ForEachElement(const GumboNode* root, Fn&& fn) {
  std::vector<const GumboNode*> stack = {root};
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE) continue;
    fn(node);
    const GumboVector& children = node->v.element.children;
    for (unsigned i = children.length; i > 0; --i) {
      stack.push_back(static_cast<const GumboNode*>(children.data[i - 1]));
    }
  }
}

void AppendText(const GumboNode* root, std::string* out) {
  std::vector<const GumboNode*> stack = {root};
  while (!stack.empty()) {
    const GumboNode* node = stack.back();
    stack.pop_back();
    if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE ||
        node->type == GUMBO_NODE_CDATA) {
      out->append(node->v.text.text);
    } else if (node->type == GUMBO_NODE_ELEMENT || node->type == GUMBO_NODE_TEMPLATE) {
      const GumboVector& children = node->v.element.children;
      for (unsigned i = children.length; i > 0; --i) {
        stack.push_back(static_cast<const GumboNode*>(children.data[i - 1]));
      }
    }
  }
}

struct PageDirectives {
  std::string base;  // what relative links resolve against
  bool nofollow = false;
};

PageDirectives ReadDirectives(const GumboNode* root, std::string_view page_url) {
  PageDirectives d{std::string(page_url), false};
  bool have_base = false;
  ForEachElement(root, [&](const GumboNode* node) {
    GumboTag tag = node->v.element.tag;
    if (tag == GUMBO_TAG_BASE && !have_base) {
      const char* href = Attr(node, "href");
      if (href == nullptr) return;
      have_base = true;
      auto base = ResolveReference(page_url, href);
      if (base) d.base = *base;
    } else if (tag == GUMBO_TAG_META) {
      const char* name = Attr(node, "name");
      if (name != nullptr && strcasecmp(name, "robots") == 0) {
        const char* content = Attr(node, "content");
        if (HasToken(content, "nofollow") || HasToken(content, "none")) d.nofollow = true;
      }
    }
  });
  return d;
}

}  // namespace

std::vector<Outlink> ExtractLinksWithGumbo(std::string_view html, std::string_view page_url,
                                           const LinkExtractorOptions& options,
                                           const UrlFilter* filter) {
  const GumboOutput* output = Parse(html);
  std::vector<Outlink> links;
  PageDirectives directives = ReadDirectives(output->root, page_url);
  if (directives.nofollow && options.honour_nofollow) return links;
  std::unordered_set<std::string> seen;
  ForEachElement(output->root, [&](const GumboNode* node) {
    if (links.size() >= options.max_outlinks) return;
    GumboTag tag = node->v.element.tag;
    const char* ref = nullptr;
    if (tag == GUMBO_TAG_A || tag == GUMBO_TAG_AREA) {
      ref = Attr(node, "href");
      if (options.honour_nofollow && HasToken(Attr(node, "rel"), "nofollow")) return;
    } else if (tag == GUMBO_TAG_FRAME || tag == GUMBO_TAG_IFRAME) {
      ref = Attr(node, "src");
    }
    if (ref == nullptr) return;
    auto url = ResolveUrl(directives.base, ref);
    if (!url || (filter != nullptr && !filter->Accepts(*url))) return;
    if (!seen.insert(*url).second) return;
    std::string text;
    if (tag == GUMBO_TAG_A) {
      AppendText(node, &text);
    } else if (tag == GUMBO_TAG_AREA && Attr(node, "alt") != nullptr) {
      text = Attr(node, "alt");
    }
    links.push_back(Outlink{std::move(*url), CollapseAnchor(text, options.max_anchor_bytes)});
  });
  return links;
}

}  // namespace testutil
