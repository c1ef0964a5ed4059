// The `inject` step of the crawl cycle: seed URL files (crawl/url_list.h) to writer
// calls. Each normalized URL is offered to the filter and becomes addPageIfNotPresent
// of a page with every field at its default (md5 = MD5 of the url, nextFetch 0 = due
// now). docs/CRAWL.md, "Inject".
//
// Not thread-safe; never closes the sink.
#ifndef CRAWL_INJECTOR_H_
#define CRAWL_INJECTOR_H_

#include <cstdint>
#include <string>

#include "crawl/url_filter.h"
#include "webdb/calls/call_sink.h"

namespace crawl {

struct InjectOptions {
  const UrlFilter* filter = nullptr;  // may be null
  bool skip_bad = false;              // count bad lines instead of failing
};

struct InjectStats {
  uint64_t urls = 0;      // addPageIfNotPresent calls
  uint64_t filtered = 0;  // rejected by the filter
  uint64_t bad = 0;       // skipped with skip_bad
};

class Injector {
 public:
  Injector(InjectOptions options, webdb::CallSink& sink) : options_(options), sink_(sink) {}

  // Injects every line of the file at path ("-" = standard input). A line that is not
  // a crawl URL is InvalidArgument "FILE:LINE: reason" unless skip_bad.
  Status AddFile(nutchfs::Env& env, const std::string& path);
  // One URL. REQUIRES: url is normalized (crawl::NormalizeUrl).
  Status AddUrl(std::string url);

  const InjectStats& stats() const { return stats_; }

 private:
  InjectOptions options_;
  webdb::CallSink& sink_;
  InjectStats stats_;
};

}  // namespace crawl

#endif  // CRAWL_INJECTOR_H_
