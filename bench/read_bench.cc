// read_bench: page lookups through the reader API in one process, what `webdb page` does
// once per process, so that a lookup's own cost shows rather than a process start's.
//
//   read_bench --db DIR [--lookups N] [--seed S]
//
// Prints the runs of each table of the db's current version, then samples N urls of its
// pages (a reservoir over a scan of pagesByURL, not timed), shuffles them with seed S
// and times Reader::GetPage on each; every one must be found. bench/read_bench.sh runs it
// on a db with the most runs the policy allows and on the same db compacted.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/db/reader.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  std::string db;
  size_t lookups = 100000;
  unsigned seed = 7;
};

[[noreturn]] void Usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s --db DIR [--lookups N] [--seed S]\n", argv0);
  std::exit(2);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--db") {
      f.db = value;
    } else if (name == "--lookups") {
      f.lookups = std::stoull(value);
    } else if (name == "--seed") {
      f.seed = static_cast<unsigned>(std::stoul(value));
    } else {
      Usage(argv[0]);
    }
  }
  if (f.db.empty() || argc % 2 == 0) Usage(argv[0]);
  return f;
}

void Check(const webdb::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "read_bench: %s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

// Up to n urls of the db's pages, each page equally likely (reservoir sampling).
std::vector<std::string> SampleUrls(const webdb::Reader& reader, size_t n, std::mt19937_64& rng) {
  std::vector<std::string> urls;
  webdb::PageCursor pages = reader.Pages();
  uint64_t seen = 0;
  for (;;) {
    auto page = pages.Next();
    if (!page) Check(page.error(), "scan of pagesByURL");
    if (!*page) break;
    ++seen;
    if (urls.size() < n) {
      urls.push_back(std::move((*page)->url));
    } else if (const uint64_t j = rng() % seen; j < n) {
      urls[j] = std::move((*page)->url);
    }
  }
  return urls;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  auto env = nutchfs::NewLocalEnv();
  auto reader = webdb::Reader::Open(*env, flags.db);
  if (!reader) Check(reader.error(), "open");
  std::printf("runs:");
  for (auto t : {webdb::TableId::kPagesByUrl, webdb::TableId::kPagesByMd5,
                 webdb::TableId::kLinksByMd5, webdb::TableId::kLinksByUrl}) {
    std::printf(" %s %llu", webdb::TableName(t),
                static_cast<unsigned long long>((*reader)->Size(t).runs));
  }
  std::printf("\n");

  std::mt19937_64 rng(flags.seed);
  std::vector<std::string> urls = SampleUrls(**reader, flags.lookups, rng);
  std::shuffle(urls.begin(), urls.end(), rng);
  const auto start = Clock::now();
  for (const std::string& url : urls) {
    auto page = (*reader)->GetPage(url);
    if (!page) Check(page.error(), "lookup");
    if (!*page) Check(webdb::Status::Corruption("a sampled page was not found: " + url), "lookup");
  }
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("lookups: %zu pages in %.3f s, %.2f us each\n", urls.size(), secs,
              urls.empty() ? 0.0 : secs / urls.size() * 1e6);
  return 0;
}
