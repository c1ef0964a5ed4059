// The outlinks of an HTML page, found by crawl::TokenizeHtml (the WHATWG tokenizer, no
// tree): href of <a> and <area>, src of <frame> and <iframe>, resolved against <base
// href> (the first one, itself resolved against the page URL) or the page URL,
// normalized by crawl::ResolveUrl; only http and https targets are kept. Rules:
// docs/CRAWL.md, "Links". test/crawl/link_extractor_test.cc checks the result against
// gumbo, a full HTML5 parser.
//
// Plain function on values; thread-safe.
#ifndef CRAWL_LINK_EXTRACTOR_H_
#define CRAWL_LINK_EXTRACTOR_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "crawl/url_filter.h"

namespace crawl {

struct LinkExtractorOptions {
  // Honour rel="nofollow" on a link and <meta name="robots" content="nofollow|none">.
  bool honour_nofollow = true;
  // Anchor text is whitespace-collapsed, trimmed and cut to at most this many bytes
  // (at a UTF-8 character boundary).
  size_t max_anchor_bytes = 100;
  // At most this many distinct targets per page, the first ones in document order.
  size_t max_outlinks = 100;
};

struct Outlink {
  std::string url;  // normalized
  std::string anchor;
  bool operator==(const Outlink&) const = default;
};

// The distinct outlinks of html in document order; a target found twice keeps its first
// occurrence. URLs the filter rejects (and hrefs that do not resolve to an http(s) URL)
// are skipped before the max_outlinks cap counts them. filter may be null.
std::vector<Outlink> ExtractLinks(std::string_view html, std::string_view page_url,
                                  const LinkExtractorOptions& options, const UrlFilter* filter);

// Collapses runs of ASCII white space to one space, trims, and cuts to max_bytes
// without splitting a UTF-8 sequence.
std::string CollapseAnchor(std::string_view text, size_t max_bytes);

}  // namespace crawl

#endif  // CRAWL_LINK_EXTRACTOR_H_
