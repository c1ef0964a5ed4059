#include "bench/crawl_gen.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

namespace bench {
namespace {

// HostOf as the generator first computed it: a search of the whole Zipf table.
uint32_t HostBySearch(const CrawlGen& gen, uint64_t id) {
  const uint64_t hosts = std::max<uint64_t>(16, gen.universe() / 40);
  std::vector<double> cdf(hosts);
  double sum = 0;
  for (uint64_t h = 0; h < hosts; ++h) cdf[h] = sum += 1.0 / static_cast<double>(h + 1);
  for (double& c : cdf) c /= sum;
  const double u = static_cast<double>(gen.Hash(1, id) >> 11) * 0x1.0p-53;
  auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  if (it == cdf.end()) --it;
  return static_cast<uint32_t>(it - cdf.begin());
}

}  // namespace

// The generated urls (and so every benchmark's calls) must not change with HostOf's index.
TEST_CASE("crawl generator: HostOf finds the host a search of the whole table finds") {
  for (uint64_t universe : {10, 640, 1000, 123457}) {
    const CrawlGen gen(42, universe);
    for (uint64_t id = 0; id < 20000; ++id) {
      INFO(universe << " " << id);
      REQUIRE(gen.HostOf(id) == HostBySearch(gen, id));
    }
  }
}

}  // namespace bench
