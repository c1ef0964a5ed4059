// Everything the current version of a db says about one url (`webdb explain`): its
// page, the other pages with the same content md5, its outlinks (the links from that
// md5) and inlinks (with their targetHasOutlink), and whether it is due for fetching
// and its rank in the order `generate` picks due pages: score descending, then url
// ascending (crawl/generator.h). Lookups seek; the rank takes one pass over pagesByURL.
// A pure function over a Reader; thread-safe as the Reader is (one thread at a time).
#ifndef WEBDB_EXPLAIN_H_
#define WEBDB_EXPLAIN_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "webdb/reader.h"

namespace webdb {

struct Explanation {
  std::optional<Page> page;     // nullopt: no page at the url
  std::vector<Page> same_md5;   // other pages with the page's md5, url order
  std::vector<Link> outlinks;   // links from the page's md5, url order
  std::vector<Link> inlinks;    // links to the url, `from` order
  bool due = false;             // the page exists and nextFetch <= now
  uint64_t rank = 0;            // 1-based among due pages when due, else 0
  uint64_t due_pages = 0;       // all due pages of the db
};

Result<Explanation> Explain(const Reader& reader, std::string_view url, int64_t now_ms);

}  // namespace webdb

#endif  // WEBDB_EXPLAIN_H_
