// Fuzzes URL filter rules (crawl/url_filter.h). The input is the rules text, a NUL, then
// a url to test.
// Properties: no crash; errors are InvalidArgument naming NAME:LINE; the first matching
// rule decides: rules followed by a reject-all rule decide every url as the rules alone,
// and rules preceded by an accept-all rule accept every url.
#include <algorithm>
#include <cstdint>
#include <string>

#include "crawl/url.h"
#include "crawl/url_filter.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = fuzzutil::SplitAtNul(fuzzutil::AsView(data, size), 2);
  const std::string rules(parts[0]);
  const std::string_view url = parts[1];

  auto filter = crawl::UrlFilter::Parse(rules, "regex-urlfilter.txt");
  if (!filter) {
    FUZZ_CHECK_MSG(filter.error().IsInvalidArgument(), filter.error().ToString());
    FUZZ_CHECK_MSG(filter.error().message().starts_with("regex-urlfilter.txt:"),
                   filter.error().ToString());
    return 0;
  }
  auto reject_rest = crawl::UrlFilter::Parse(rules + "\n-.\n", "regex-urlfilter.txt");
  auto accept_first = crawl::UrlFilter::Parse("+.\n" + rules, "regex-urlfilter.txt");
  FUZZ_CHECK(reject_rest.has_value() && accept_first.has_value());
  FUZZ_CHECK(reject_rest->num_rules() == filter->num_rules() + 1);

  std::vector<std::string> urls = {std::string(url)};
  if (auto n = crawl::NormalizeUrl(url)) urls.push_back(*n);
  for (const std::string& u : urls) {
    const bool accepted = filter->Accepts(u);
    if (filter->num_rules() > 0) FUZZ_CHECK(reject_rest->Accepts(u) == accepted);
    // "." matches any url holding an ASCII character other than newline.
    const bool has_ascii = std::any_of(u.begin(), u.end(), [](char c) {
      return c != '\n' && static_cast<unsigned char>(c) < 0x80;
    });
    if (has_ascii) FUZZ_CHECK(accept_first->Accepts(u));
  }
  return 0;
}
