// Web graphs for the rank tests, and the reference the rank is checked against: the
// computation of shared/spec/link-analysis.md done the plain way, a dense power iteration
// in doubles over every page, straight from a db's dump.
//
// Plain values and free functions; no shared state.
#ifndef TEST_UTIL_RANK_GRAPH_H_
#define TEST_UTIL_RANK_GRAPH_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "test/util/db_dump.h"
#include "test/util/session.h"
#include "webdb/db/manifest.h"

namespace testutil {

struct RankGraph {
  struct PageSpec {
    std::string url;
    int content = 0;  // pages of one content share its md5 (and its links)
    float score = 1;
  };
  std::vector<PageSpec> pages;
  std::vector<std::pair<int, std::string>> links;  // content -> target url

  // addPageWithScore for every page (md5 = MD5 of "content <c>"), then addLink for every link.
  Session ToSession() const;

  // `pages` pages at http://p<i>.example/ whose contents are drawn from `contents`, each
  // content linking to up to `max_links` random pages (its own urls among them now and
  // then); random starting scores in [0, 3) when `scores`.
  static RankGraph Random(uint64_t seed, int pages, int contents, int max_links, bool scores);
};

struct ReferenceRank {
  std::map<std::string, double> scores;  // url -> its last r'
  uint32_t done = 0;                     // iterations run
  double l1 = 0;                         // the change of the last one
};

// The rank of the db whose dump this is, by the spec.
ReferenceRank RankByDefinition(const DbDump& dump, const webdb::RankOptions& options);

// Empty when every page of dump has the float nearest to the reference score within
// tolerance (and the reference has no other page); otherwise the first difference.
std::string CompareScores(const ReferenceRank& expected, const DbDump& dump, double tolerance);

}  // namespace testutil

#endif  // TEST_UTIL_RANK_GRAPH_H_
