// The reference for crawl::ExtractLinks: the same rules (docs/CRAWL.md, "Links") on the
// tree that gumbo, a full HTML5 parser, builds. This was crawl's implementation before
// the tokenizer replaced it; tests compare the two on real and tricky pages.
//
// Plain function on values; thread-safe.
#ifndef TEST_UTIL_GUMBO_LINKS_H_
#define TEST_UTIL_GUMBO_LINKS_H_

#include <string_view>
#include <vector>

#include "crawl/link_extractor.h"

namespace testutil {

std::vector<crawl::Outlink> ExtractLinksWithGumbo(std::string_view html, std::string_view page_url,
                                                  const crawl::LinkExtractorOptions& options,
                                                  const crawl::UrlFilter* filter);

}  // namespace testutil

#endif  // TEST_UTIL_GUMBO_LINKS_H_
