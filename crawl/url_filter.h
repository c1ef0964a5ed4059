// A URL filter in the spirit of Nutch's regex-urlfilter.txt: an ordered list of rules,
// each `+REGEX` (accept) or `-REGEX` (reject); the first rule whose RE2 regular
// expression matches anywhere in the (normalized) URL decides, and a URL no rule
// matches is rejected. Lines that are blank or start with `#` are ignored. An empty
// filter (no rules at all) accepts every URL. Format: docs/CRAWL.md, "URL filter".
//
// Immutable after loading; Accepts() is thread-safe.
#ifndef CRAWL_URL_FILTER_H_
#define CRAWL_URL_FILTER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"
#include "nutchfs/status.h"

namespace re2 {
class RE2;
}

namespace crawl {

using nutchfs::Result;
using nutchfs::Status;

class UrlFilter {
 public:
  UrlFilter();  // accepts everything
  ~UrlFilter();
  UrlFilter(UrlFilter&&) noexcept;
  UrlFilter& operator=(UrlFilter&&) noexcept;

  // Parses rules text; errors are InvalidArgument "NAME:LINE: reason".
  static Result<UrlFilter> Parse(std::string_view text, const std::string& name);
  // Reads and parses the file at path.
  static Result<UrlFilter> Load(nutchfs::Env& env, const std::string& path);

  bool Accepts(std::string_view url) const;
  size_t num_rules() const { return rules_.size(); }

 private:
  struct Rule {
    bool accept;
    std::unique_ptr<re2::RE2> regex;
  };
  std::vector<Rule> rules_;
};

}  // namespace crawl

#endif  // CRAWL_URL_FILTER_H_
