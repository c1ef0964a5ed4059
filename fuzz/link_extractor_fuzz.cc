// Fuzzes link extraction from HTML (crawl/link_extractor.h). The input is a page url, a
// NUL, then the HTML (an input without NUL is all HTML, at a fixed page url).
// Properties: no crash; every outlink is a normalized http(s) url that the db accepts
// (webdb::ValidateUrl) and is found once; at most max_outlinks; anchors are collapsed,
// at most max_anchor_bytes and valid UTF-8; a filter only removes links.
#include <cstdint>
#include <set>
#include <string>

#include "crawl/link_extractor.h"
#include "crawl/url.h"
#include "crawl/url_filter.h"
#include "fuzz/fuzz_util.h"
#include "webdb/table/record.h"

namespace {

void CheckLinks(const std::vector<crawl::Outlink>& links, const crawl::LinkExtractorOptions& o) {
  FUZZ_CHECK(links.size() <= o.max_outlinks);
  std::set<std::string> seen;
  for (const crawl::Outlink& link : links) {
    FUZZ_CHECK(seen.insert(link.url).second);
    FUZZ_CHECK(link.url.starts_with("http://") || link.url.starts_with("https://"));
    webdb::Status valid = webdb::ValidateUrl(link.url);
    FUZZ_CHECK_MSG(valid.ok(), valid.ToString());
    auto again = crawl::NormalizeUrl(link.url);
    FUZZ_CHECK_MSG(again.has_value() && *again == link.url, link.url);
    FUZZ_CHECK(link.anchor.size() <= o.max_anchor_bytes);
    FUZZ_CHECK(crawl::CollapseAnchor(link.anchor, o.max_anchor_bytes) == link.anchor);
    FUZZ_CHECK_MSG(fuzzutil::ValidUtf8(link.anchor), link.anchor);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fuzzutil::AsView(data, size);
  std::string page_url = "http://www.example.com/dir/page.html";
  std::string_view html = input;
  if (const size_t nul = input.find('\0'); nul != std::string_view::npos) {
    if (auto url = crawl::NormalizeUrl(input.substr(0, nul))) page_url = *url;
    html = input.substr(nul + 1);
  }
  crawl::LinkExtractorOptions options;
  options.max_outlinks = 20;
  options.max_anchor_bytes = 40;
  const auto links = crawl::ExtractLinks(html, page_url, options, nullptr);
  CheckLinks(links, options);

  options.honour_nofollow = false;
  CheckLinks(crawl::ExtractLinks(html, page_url, options, nullptr), options);
  options.honour_nofollow = true;

  // A filter that keeps some links keeps them in order, dropping only the others.
  auto filter = crawl::UrlFilter::Parse("-[0-9]\n+.\n", "filter");
  FUZZ_CHECK(filter.has_value());
  options.max_outlinks = 1000;
  const auto all = crawl::ExtractLinks(html, page_url, options, nullptr);
  const auto kept = crawl::ExtractLinks(html, page_url, options, &*filter);
  CheckLinks(kept, options);
  size_t i = 0;
  for (const crawl::Outlink& link : all) {
    if (!filter->Accepts(link.url)) continue;
    FUZZ_CHECK(i < kept.size() && kept[i] == link);
    ++i;
  }
  FUZZ_CHECK(i == kept.size());
  return 0;
}
