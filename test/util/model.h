// Model: a plain in-memory WebDB that applies a session by the declarative definition of
// spec/webdb-semantics.md, section 4, literally (winner per url, P0 -> P1, link additions,
// source rule, target rule). It is the oracle the real writers are tested against, so it
// is written for obviousness, not speed.
//
// A Model owns its pages and links. Not thread-safe.
#ifndef TEST_UTIL_MODEL_H_
#define TEST_UTIL_MODEL_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "test/util/db_dump.h"
#include "test/util/session.h"
#include "webdb/table/record.h"

namespace testutil {

class Model {
 public:
  using LinkKey = std::pair<webdb::Md5, std::string>;  // (from, url)

  // Applies one whole session (section 4). A distributed session is the concatenation of
  // the writers' slices in writer order, so it needs nothing special here.
  void Apply(const Session& session);

  const std::map<std::string, webdb::Page>& pages() const { return pages_; }
  const std::map<LinkKey, webdb::Link>& links() const { return links_; }

  // The four tables, bytewise (unsigned) order.
  std::vector<webdb::Page> PagesByUrl() const;
  std::vector<webdb::Page> PagesByMd5() const;  // (md5, url)
  std::vector<webdb::Link> LinksByMd5() const;  // (from, url)
  std::vector<webdb::Link> LinksByUrl() const;  // (url, from)
  DbDump ToDump() const;

  // The reader's lookups, answered from the model.
  std::optional<webdb::Page> GetPage(const std::string& url) const;
  // GetPages, PageExists and Inlinks scan the whole model: O(pages) or O(links) a call.
  std::vector<webdb::Page> GetPages(const webdb::Md5& md5) const;  // url order
  bool PageExists(const webdb::Md5& md5) const;
  std::vector<webdb::Link> Inlinks(const std::string& url) const;  // from order
  std::vector<webdb::Link> Outlinks(const webdb::Md5& md5) const;  // url order

 private:
  // Section 4.1: the winning call index per touched url.
  static std::map<std::string, size_t> PageWinners(const Session& session);
  // Section 4.1 applied to pages_; returns the links of winning inserted
  // addPageIfNotPresent calls, in url order.
  std::vector<webdb::Link> ApplyPageWinners(const Session& session,
                                            const std::map<std::string, size_t>& winners);
  void AddLinks(const Session& session, const std::vector<webdb::Link>& apinp_links);
  void ApplySourceAndTargetRules();

  std::map<std::string, webdb::Page> pages_;
  std::map<LinkKey, webdb::Link> links_;
};

}  // namespace testutil

#endif  // TEST_UTIL_MODEL_H_
