// Everything a version of a db says about one url (`webdb explain`): its
// page, the other pages with the same content md5, its outlinks (the links from that
// md5) and inlinks (with their targetHasOutlink), and whether it is due for fetching
// and its rank in the order `generate` picks due pages: score descending, then url
// ascending (crawl/generator.h); where its score comes from: the contents linking to it,
// largest contribution first (docs/DESIGN.md, "Link analysis"); and, from the versions
// the db keeps, the url's history. Lookups seek; the rank takes one pass over pagesByURL.
// A pure function over a Reader; thread-safe as the Reader is (one thread at a time).
#ifndef WEBDB_INSPECT_EXPLAIN_H_
#define WEBDB_INSPECT_EXPLAIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "webdb/db/reader.h"

namespace webdb {

// What one content linking to the url gives it in a rank iteration over the scores now
// stored: r(u) / outdeg(u) summed over the pages u of that content with outlinks (the
// url's own page excluded: its link to itself is dropped). After `webdb rank` has
// converged, the page's score is (1 - d) + d * (its contributions + D / N), D being the
// scores of the dangling pages (shared/spec/link-analysis.md).
struct Contribution {
  Md5 from;
  uint64_t pages = 0;     // pages of the content that link to the url
  std::string first_url;  // the first of them, in url order
  double share = 0;
};

// The contributions explain lists, at most.
constexpr size_t kTopContributions = 10;

struct Explanation {
  std::optional<Page> page;     // nullopt: no page at the url
  std::vector<Page> same_md5;   // other pages with the page's md5, url order
  std::vector<Link> outlinks;   // links from the page's md5, url order
  std::vector<Link> inlinks;    // links to the url, `from` order
  // The kTopContributions largest contributions of its inlinks' contents, largest
  // first (ties by md5).
  std::vector<Contribution> top_contributions;
  bool due = false;             // the page exists and nextFetch <= now
  uint64_t rank = 0;            // 1-based among due pages when due, else 0
  uint64_t due_pages = 0;       // all due pages of the db
};

Result<Explanation> Explain(const Reader& reader, std::string_view url, int64_t now_ms);

// One kept version of the db, open (webdb/db/versions.h).
struct KeptVersion {
  uint64_t version = 0;
  uint64_t restores = 0;  // a rollback to this version; 0 if none
  const Reader* reader = nullptr;
};

// The url's page in one kept version.
struct VersionRecord {
  uint64_t version = 0;
  uint64_t restores = 0;
  std::optional<Page> page;
};

// A link of the url (an inlink, or an outlink of its content in some version) that a
// kept version had and the explained one has not, and what removed it.
struct GoneLink {
  Link link;
  bool outlink = false;
  uint64_t last_version = 0;  // the last version that had it
  uint64_t gone_in = 0;       // the version after it
  std::string why;
};

// What the kept versions say about one url: its record in each, when its page appeared,
// which rule removed it (when the explained version has no page but an older one had),
// and which of its links are gone and why. What can be known from the versions alone:
// a page is only removed by deletePage (webdb update sends one for a page whose fetch
// fails past --max-retries) or by a rollback; a link only by the source rule (no page
// has its `from` content any more), the target rule (no page at its url) or a rollback.
struct History {
  std::vector<VersionRecord> versions;  // oldest first
  std::string appeared;  // "in version 5", or "in version 3 or before (the oldest kept)"
  std::string removed;   // empty unless the page is gone
  std::vector<GoneLink> gone_links;
};

// REQUIRES: versions holds the kept versions up to the explained one, oldest first, all
// open; the last one is the version explained.
Result<History> ExplainHistory(const std::vector<KeptVersion>& versions, std::string_view url);

}  // namespace webdb

#endif  // WEBDB_INSPECT_EXPLAIN_H_
