// URL list files, the one format of seed files (inject) and fetch lists (generate's
// output, update's --fetchlist): one URL a line (lines cut by crawl/text_lines.h);
// surrounding white space is ignored; blank lines and lines whose first non-blank
// character is `#` are skipped, and a `#` after white space starts a comment. White space
// inside the URL is an error. Each URL is normalized by crawl::NormalizeUrl.
// docs/CRAWL.md, "Inject".
//
// Plain function; thread-safe as long as fn is.
#ifndef CRAWL_URL_LIST_H_
#define CRAWL_URL_LIST_H_

#include <cstdint>
#include <functional>
#include <string>

#include "nutchfs/env.h"

namespace crawl {

using nutchfs::Status;

struct UrlListOptions {
  bool skip_bad = false;     // count lines that are not crawl URLs instead of failing
  uint64_t* bad = nullptr;   // where skipped lines are counted; may be null
};

// Calls fn with each normalized URL of the file at path ("-" = standard input), in file
// order. A line that is not a crawl URL is InvalidArgument "FILE:LINE: reason" unless
// skip_bad. An error from fn stops the reading and is returned.
Status ReadUrlList(nutchfs::Env& env, const std::string& path, const UrlListOptions& options,
                   const std::function<Status(std::string url)>& fn);

}  // namespace crawl

#endif  // CRAWL_URL_LIST_H_
