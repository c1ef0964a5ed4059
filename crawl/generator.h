// The `generate` step of the crawl cycle: the fetch list. Out of every due page
// (nextFetch <= now) it selects the top_n with the highest score, ties broken by url,
// taking at most max_per_group pages of one host (or registrable domain), and hands
// them out best first. docs/CRAWL.md, "Generate".
//
// One sequential read of pagesByURL that keeps the candidates in memory (crawl/best_pages.h);
// when they do not fit in memory_budget, a second read into one or two external sorts
// (webdb::Sorter, runs in tmp_dir) instead. Memory stays within memory_budget whatever
// top_n and the db size. The reader is only read; leasing the pages (nextFetch = now +
// lease) is the caller's addPage on each emitted page. Not thread-safe.
#ifndef CRAWL_GENERATOR_H_
#define CRAWL_GENERATOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "webdb/db/reader.h"
#include "webdb/util/progress.h"

namespace crawl {

using nutchfs::Result;
using nutchfs::Status;

struct GenerateOptions {
  uint64_t top_n = 0;
  uint64_t max_per_group = 0;  // 0 = no cap
  enum class GroupBy { kHost, kDomain } group_by = GroupBy::kHost;
  int64_t now_ms = 0;
  size_t memory_budget = size_t{64} << 20;
  std::string tmp_dir;  // for sort runs; created if missing
  webdb::ProgressFn progress;  // called as the pages are read; may be empty
};

struct GenerateStats {
  uint64_t pages = 0;     // pages read
  uint64_t due = 0;       // with nextFetch <= now
  // Due pages left out by the per-group cap. With the external sorts all of them; in
  // memory those that no threshold of top_n better candidates turned away first, which
  // depends on when the candidates were compacted (crawl/best_pages.h).
  uint64_t capped = 0;
  uint64_t selected = 0;  // pages emitted
  bool sorted = false;    // the candidates did not fit in memory: external sorts
};

// Calls emit on each selected page, best first; an error from emit stops and is
// returned.
Status Generate(nutchfs::Env& env, const webdb::Reader& reader, const GenerateOptions& options,
                const std::function<Status(const webdb::Page&)>& emit, GenerateStats* stats);

// The score as an unsigned integer that ascends from the highest score to the lowest.
uint32_t DescendingScoreBits(float score);
// Its 4 bytes, big-endian: they sort bytewise from the highest score to the lowest.
std::string DescendingScoreKey(float score);

// The group a page is capped in: its url's host[:port], or that host's registrable domain.
std::string GroupOfUrl(std::string_view url, GenerateOptions::GroupBy by);

}  // namespace crawl

#endif  // CRAWL_GENERATOR_H_
