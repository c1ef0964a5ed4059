// Fuzzes URL normalization and reference resolution (crawl/url.h). The input is a url,
// or a base url, a NUL and a reference.
// Properties: no crash; errors are InvalidArgument; a normalized url is an http(s) url
// the db accepts (webdb::ValidateUrl), printable ASCII without spaces, with a host, and
// normalizing it again changes nothing; resolution results are normalized too, and a
// normalized url resolves to itself against any base.
#include <cstdint>
#include <string>

#include "crawl/url.h"
#include "fuzz/fuzz_util.h"
#include "webdb/table/record.h"

namespace {

void CheckNormalized(const std::string& url) {
  FUZZ_CHECK_MSG(url.starts_with("http://") || url.starts_with("https://"), url);
  webdb::Status valid = webdb::ValidateUrl(url);
  FUZZ_CHECK_MSG(valid.ok(), valid.ToString());
  for (char c : url) FUZZ_CHECK_MSG(c > 0x20 && c < 0x7f, url);
  FUZZ_CHECK_MSG(!crawl::HostOfUrl(url).empty(), url);
  auto again = crawl::NormalizeUrl(url);
  FUZZ_CHECK_MSG(again.has_value(), url + " -> " + (again ? "" : again.error().ToString()));
  FUZZ_CHECK_MSG(*again == url, url + " -> " + *again);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = fuzzutil::SplitAtNul(fuzzutil::AsView(data, size), 2);
  const std::string_view first = parts[0];
  const std::string_view ref = parts[1];

  auto normalized = crawl::NormalizeUrl(first);
  if (normalized) {
    CheckNormalized(*normalized);
  } else {
    FUZZ_CHECK_MSG(normalized.error().IsInvalidArgument(), normalized.error().ToString());
  }

  auto raw = crawl::ResolveReference(first, ref);
  if (!raw) FUZZ_CHECK_MSG(raw.error().IsInvalidArgument(), raw.error().ToString());
  auto resolved = crawl::ResolveUrl(first, ref);
  if (resolved) {
    CheckNormalized(*resolved);
  } else {
    FUZZ_CHECK_MSG(resolved.error().IsInvalidArgument(), resolved.error().ToString());
  }

  // An absolute, normalized url is its own target from any page.
  if (normalized) {
    for (std::string_view base :
         {std::string_view(*normalized), std::string_view("http://h/a/b?q")}) {
      auto self = crawl::ResolveUrl(base, *normalized);
      FUZZ_CHECK_MSG(self.has_value() && *self == *normalized, *normalized);
    }
  }
  return 0;
}
