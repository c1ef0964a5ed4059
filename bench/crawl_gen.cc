#include "bench/crawl_gen.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace bench {
namespace {

constexpr std::string_view kWords[] = {
    "news",  "blog",   "archive", "products", "catalog", "about",   "sports", "music",
    "video", "forum",  "wiki",    "docs",     "help",    "events",  "travel", "science",
    "2004",  "2005",   "health",  "store",    "images",  "reviews", "tech",   "world",
    "local", "people", "jobs",    "search",   "weather", "movies",  "books",  "games"};
constexpr int kNumWords = sizeof(kWords) / sizeof(kWords[0]);

// splitmix64's finalizer: a cheap, well-mixed 64-bit permutation.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform double in [0, 1) from the top 53 bits of h.
double Unit(uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

void AppendBase36(uint64_t v, std::string* out) {
  char buf[16];
  char* p = buf + sizeof buf;
  do {
    *--p = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
    v /= 36;
  } while (v != 0);
  out->append(p, buf + sizeof buf);
}

}  // namespace

CrawlGen::CrawlGen(uint64_t seed, uint64_t universe) : seed_(seed), universe_(universe) {
  const uint64_t hosts = std::max<uint64_t>(16, universe / 40);
  host_cdf_.resize(hosts);
  double sum = 0;
  for (uint64_t h = 0; h < hosts; ++h) {
    sum += 1.0 / static_cast<double>(h + 1);
    host_cdf_[h] = sum;
  }
  for (double& c : host_cdf_) c /= sum;
  // A power of two at least the number of hosts, so that u * host_scale_ is exact.
  size_t buckets = 1;
  while (buckets < hosts) buckets *= 2;
  host_scale_ = static_cast<double>(buckets);
  host_start_.resize(buckets + 1);
  for (size_t b = 0; b <= buckets; ++b) {
    const double u = static_cast<double>(b) / host_scale_;
    host_start_[b] = static_cast<uint32_t>(
        std::upper_bound(host_cdf_.begin(), host_cdf_.end(), u) - host_cdf_.begin());
  }
}

uint64_t CrawlGen::Hash(uint64_t a, uint64_t b, uint64_t c) const {
  return Mix(Mix(Mix(seed_ ^ a) ^ b) ^ c);
}

uint32_t CrawlGen::HostOf(uint64_t id) const {
  const double u = Unit(Hash(1, id));
  // upper_bound is monotonic: the u of bucket b fall between those of b and b + 1.
  const auto b = static_cast<size_t>(u * host_scale_);
  auto it = std::upper_bound(host_cdf_.begin() + host_start_[b],
                             host_cdf_.begin() + host_start_[b + 1], u);
  if (it == host_cdf_.end()) --it;
  return static_cast<uint32_t>(it - host_cdf_.begin());
}

std::string CrawlGen::HostName(uint32_t host) const {
  const uint64_t h = Hash(2, host);
  std::string name;
  name.reserve(128);  // room for the url it starts
  name += (h & 1) ? "http://www." : "http://";
  name += kWords[(h >> 8) % kNumWords];
  name += kWords[(h >> 16) % kNumWords];
  name += '-';
  AppendBase36(host, &name);
  name += (h & 6) ? ".example.com" : ".example.org";
  return name;
}

std::string CrawlGen::Url(uint64_t id) const {
  const uint64_t h = Hash(3, id);
  std::string url = HostName(HostOf(id));
  const int segments = 1 + static_cast<int>(h % 4);
  for (int s = 0; s < segments; ++s) {
    url += '/';
    url += kWords[(h >> (8 + 5 * s)) % kNumWords];
  }
  url += "/item-";
  AppendBase36(id, &url);
  if ((h >> 40) % 5 == 0) {
    url += "?ref=";
    url += kWords[(h >> 48) % kNumWords];
    url += "&session=";
    AppendBase36(Hash(4, id) & 0xffffffffffULL, &url);
  } else {
    url += ".html";
  }
  return url;
}

webdb::Md5 CrawlGen::ContentMd5(uint64_t id, uint32_t version) const {
  webdb::Md5 md5;
  const uint64_t hi = Hash(5, id, version), lo = Hash(6, id, version);
  for (int i = 0; i < 8; ++i) {
    md5[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    md5[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  return md5;
}

int CrawlGen::Outdegree(uint64_t id, uint32_t version) const {
  // Pareto with x_min 5 and alpha 2 has mean 10; the cap trims the far tail.
  const double u = 1.0 - Unit(Hash(7, id, version));
  const double d = 5.0 / std::sqrt(u);
  return static_cast<int>(std::min<double>(d, kMaxOutdegree));
}

std::vector<uint64_t> CrawlGen::Outlinks(uint64_t id, uint32_t version, int n) const {
  std::vector<uint64_t> targets;
  targets.reserve(n);
  for (int i = 0; i < n; ++i) {
    const uint64_t h = Hash(8, id, (uint64_t{version} << 32) | static_cast<uint32_t>(i));
    double u = Unit(h);
    if (h & 1) u = u * u * u;  // skewed half: low ids are the popular pages
    uint64_t t = static_cast<uint64_t>(u * static_cast<double>(universe_));
    if (t == id) t = (t + 1) % universe_;
    targets.push_back(t);
  }
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

std::string CrawlGen::Anchor(uint64_t target) const {
  const uint64_t h = Hash(9, target);
  std::string anchor(kWords[h % kNumWords]);
  if ((h >> 8) & 1) {
    anchor += ' ';
    anchor += kWords[(h >> 16) % kNumWords];
  }
  return anchor;
}

}  // namespace bench
