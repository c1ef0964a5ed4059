// The fetch list of `generate` by its definition (docs/CRAWL.md, "Generate"), for
// checking crawl::Generate and crawl::BestPages against: every due page sorted best first
// (score descending, then url), pages over the per-group cap skipped, the first top_n
// kept. And random pages that make it work hard: scores from a few values (many ties),
// few hosts (many over the cap), some due and some not, urls of varied lengths. Free
// functions; no shared state.
#ifndef TEST_UTIL_FETCH_LIST_MODEL_H_
#define TEST_UTIL_FETCH_LIST_MODEL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "crawl/generator.h"
#include "webdb/table/record.h"

namespace testutil {

// The time the pages are due by: nextFetch is now - 1, now, now + 1 and others.
constexpr int64_t kFetchListNow = 1000000;

struct RandomPagesOptions {
  int pages = 3000;
  int hosts = 36;        // on about hosts / 2 registrable domains, some under co.uk
  int max_padding = 0;   // bytes added to each url's path, 0 to this
  bool all_due = false;  // else about 3 in 5
};

// Distinct pages in random order.
std::vector<webdb::Page> RandomPages(std::mt19937_64& rng, const RandomPagesOptions& options);

// The urls of the fetch list of pages, best first.
std::vector<std::string> ExpectedFetchList(std::vector<webdb::Page> pages,
                                           const crawl::GenerateOptions& options);

}  // namespace testutil

#endif  // TEST_UTIL_FETCH_LIST_MODEL_H_
