// CrawlGen: a synthetic web crawl for benchmarks, a pure function of (seed, page id).
//
// Page ids are 0, 1, 2, ...; every id has a url, and every (id, version) a content md5
// and a list of outlink targets (other page ids). Hosts follow a Zipf law (a few huge
// sites, a long tail of small ones); outdegree follows a power law (Pareto, alpha 2,
// mean about 10, capped at kMaxOutdegree); urls are host plus 1-4 path segments, some
// with a query string, 40-120 bytes. Nothing is stored per page, so a generator for a
// billion pages costs the same as one for ten.
//
// A CrawlGen is immutable after construction and safe to share between threads.
#ifndef BENCH_CRAWL_GEN_H_
#define BENCH_CRAWL_GEN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "webdb/table/record.h"

namespace bench {

class CrawlGen {
 public:
  static constexpr int kMaxOutdegree = 200;

  // universe: how many page ids outlinks may point at (links to ids not yet added are
  // links to unfetched pages, as in a real crawl). Hosts: about one per 40 pages.
  CrawlGen(uint64_t seed, uint64_t universe);

  std::string Url(uint64_t id) const;
  // Content md5 of page id as fetched in the given version (0 = first fetch).
  webdb::Md5 ContentMd5(uint64_t id, uint32_t version) const;
  // Power-law outdegree of (id, version).
  int Outdegree(uint64_t id, uint32_t version) const;
  // n outlink targets of (id, version): half skewed towards low ids (popular pages get
  // many inlinks, a power-law indegree), half uniform over the universe.
  std::vector<uint64_t> Outlinks(uint64_t id, uint32_t version, int n) const;
  // Short anchor text of a link to target.
  std::string Anchor(uint64_t target) const;
  // The host index of page id (0 is the most popular host).
  uint32_t HostOf(uint64_t id) const;

  uint64_t seed() const { return seed_; }
  uint64_t universe() const { return universe_; }

  // A deterministic 64-bit hash of (seed, a, b, c): the generator's only source of
  // randomness, also used by workloads to pick pages per round.
  uint64_t Hash(uint64_t a, uint64_t b, uint64_t c = 0) const;

 private:
  std::string HostName(uint32_t host) const;

  uint64_t seed_;
  uint64_t universe_;
  std::vector<double> host_cdf_;  // Zipf(s = 1) cumulative weights, one per host
  // HostOf's index into host_cdf_: for the u in [b, b + 1) / host_scale_ (a power of
  // two), the host is in [host_start_[b], host_start_[b + 1]], a few entries instead of
  // all of them.
  double host_scale_ = 1;
  std::vector<uint32_t> host_start_;
};

}  // namespace bench

#endif  // BENCH_CRAWL_GEN_H_
