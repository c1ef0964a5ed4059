// What is in a db (`webdb stats`): per-table record counts and bytes, pages due for
// fetching, the hosts with most pages and most inlinks, and histograms of outdegree,
// score and retries. Computed in one streaming pass over pagesByURL, linksByURL and
// linksByMD5 (pagesByMD5 holds the same pages and is not read); memory is a few top-host
// lists, whatever the db size. Quick stats (counts and bytes only) read the manifest(s)
// alone: no table is opened.
//
// A "host" is a url's scheme and authority ("http://a.example:8080"); it is counted per
// run of consecutive urls (url order keeps one scheme and authority together, except
// for urls with no "/" after the authority, whose run is counted apart).
// Pure functions over a Reader; thread-safe as the Reader is (one thread at a time).
#ifndef WEBDB_INSPECT_DB_STATS_H_
#define WEBDB_INSPECT_DB_STATS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "webdb/db/manifest.h"
#include "webdb/db/reader.h"
#include "webdb/util/progress.h"

namespace webdb {

struct HostCount {
  std::string host;
  uint64_t count = 0;
  bool operator==(const HostCount&) const = default;
};

// Buckets in increasing order: (label, count), empty buckets left out.
using Histogram = std::vector<std::pair<std::string, uint64_t>>;

struct StatsOptions {
  bool quick = false;      // counts and bytes only
  int64_t now_ms = 0;      // a page is due when nextFetch <= now_ms
  size_t top_hosts = 10;   // length of each top-host list
  ProgressFn progress;     // called as the scans read rows; may be empty
};

struct StatsReport {
  uint64_t pages = 0, links = 0;
  std::array<TableSize, kNumTables> tables{};  // from the manifest(s)
  bool quick = false;  // the fields below are left empty
  uint64_t due_pages = 0;
  std::vector<HostCount> top_hosts_by_pages;    // most first, then by host
  std::vector<HostCount> top_hosts_by_inlinks;  // links whose target is on the host
  Histogram outdegree;  // links per content md5 that has any: "1", "2-3", "4-7", ...
  Histogram score;      // "<0", "0", "(0,0.01)", "[0.01,0.1)", ..., ">=1000"
  Histogram retries;    // one bucket per value
  // Filled in by the caller, who knows the db: the version (a distributed db's round)
  // read, the keep setting and the number of versions kept (webdb/db/versions.h), and
  // the rank that made the version's scores, if one did (its manifest's rank line).
  uint64_t version = 0;
  uint32_t keep = 0;
  uint64_t versions_kept = 0;
  std::optional<RankInfo> rank;
  // A distributed db: the machines holding a copy of each writer's section, by writer.
  std::vector<std::vector<std::string>> section_holders;
};

// The scheme and authority of url ("" when it has no "://").
std::string_view HostOfUrl(std::string_view url);

Result<StatsReport> ComputeStats(const Reader& reader, const StatsOptions& options);

// Quick stats (counts and bytes) from the manifests of one version — a single-machine
// db's manifest, or the sections of a distributed db's round — without opening a table.
StatsReport QuickStats(const std::vector<const Manifest*>& sections);

}  // namespace webdb

#endif  // WEBDB_INSPECT_DB_STATS_H_
