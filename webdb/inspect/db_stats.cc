#include "webdb/inspect/db_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace webdb {
namespace {

// Keeps the k hosts with most counts, fed runs of one host at a time.
class TopHosts {
 public:
  explicit TopHosts(size_t k) : k_(k) {}

  void Count(std::string_view host) {
    if (run_count_ > 0 && host != run_host_) EndRun();
    if (run_count_ == 0) run_host_.assign(host);
    ++run_count_;
  }

  std::vector<HostCount> Finish() {
    EndRun();
    return std::move(top_);
  }

 private:
  static bool Before(const HostCount& a, const HostCount& b) {
    return a.count > b.count || (a.count == b.count && a.host < b.host);
  }

  void EndRun() {
    if (run_count_ == 0 || k_ == 0) return;
    HostCount run{run_host_, run_count_};
    run_count_ = 0;
    auto same = std::find_if(top_.begin(), top_.end(),
                             [&](const HostCount& h) { return h.host == run.host; });
    if (same != top_.end()) {
      same->count += run.count;
    } else if (top_.size() < k_) {
      top_.push_back(std::move(run));
    } else if (Before(run, top_.back())) {
      top_.back() = std::move(run);
    }
    std::sort(top_.begin(), top_.end(), Before);
  }

  const size_t k_;
  std::string run_host_;
  uint64_t run_count_ = 0;
  std::vector<HostCount> top_;  // sorted by Before
};

constexpr const char* kScoreLabels[] = {"<0",        "0",       "(0,0.01)",    "[0.01,0.1)",
                                        "[0.1,1)",   "[1,10)",  "[10,100)",    "[100,1000)",
                                        ">=1000"};
constexpr size_t kScoreBuckets = std::size(kScoreLabels);

size_t ScoreBucket(float score) {
  if (score < 0) return 0;
  if (score == 0) return 1;
  float limit = 0.01f;
  size_t bucket = 2;
  while (bucket + 1 < kScoreBuckets && score >= limit) {
    limit *= 10;
    ++bucket;
  }
  return bucket;
}

std::string PowerOfTwoLabel(size_t i) {
  uint64_t lo = uint64_t{1} << i, hi = (lo << 1) - 1;
  return lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
}

template <typename Labels>
Histogram NonEmpty(const std::vector<uint64_t>& counts, Labels label) {
  Histogram h;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0) h.emplace_back(label(i), counts[i]);
  }
  return h;
}

RowProgress ScanProgress(const Reader& reader, const StatsOptions& options, TableId t) {
  return RowProgress(options.progress, std::string("stats ") + TableName(t),
                     reader.Size(t).records);
}

Status ScanPages(const Reader& reader, const StatsOptions& options, StatsReport* r) {
  TopHosts hosts(options.top_hosts);
  std::vector<uint64_t> scores(kScoreBuckets), retries(256);
  PageCursor pages = reader.Pages();
  RowProgress progress = ScanProgress(reader, options, TableId::kPagesByUrl);
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(auto page, pages.Next());
    if (!page) break;
    progress.Row();
    if (page->next_fetch <= options.now_ms) ++r->due_pages;
    hosts.Count(HostOfUrl(page->url));
    ++scores[ScoreBucket(page->score)];
    ++retries[page->retries];
  }
  r->top_hosts_by_pages = hosts.Finish();
  r->score = NonEmpty(scores, [](size_t i) { return std::string(kScoreLabels[i]); });
  r->retries = NonEmpty(retries, [](size_t i) { return std::to_string(i); });
  return Status::OK();
}

Status ScanInlinks(const Reader& reader, const StatsOptions& options, StatsReport* r) {
  TopHosts hosts(options.top_hosts);
  auto it = reader.NewTableIterator(TableId::kLinksByUrl);
  RowProgress progress = ScanProgress(reader, options, TableId::kLinksByUrl);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    progress.Row();
    hosts.Count(HostOfUrl(UrlOfLinkUrlKey(it->key())));
  }
  NUTCHFS_RETURN_IF_ERROR(it->status());
  r->top_hosts_by_inlinks = hosts.Finish();
  return Status::OK();
}

Status ScanOutdegree(const Reader& reader, const StatsOptions& options, StatsReport* r) {
  std::vector<uint64_t> buckets(64);
  auto it = reader.NewTableIterator(TableId::kLinksByMd5);
  RowProgress progress = ScanProgress(reader, options, TableId::kLinksByMd5);
  std::string from;
  uint64_t run = 0;
  auto end_run = [&] {
    if (run > 0) ++buckets[std::bit_width(run) - 1];
  };
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    progress.Row();
    std::string_view md5 = Md5OfKey(it->key());
    if (run > 0 && md5 != from) {
      end_run();
      run = 0;
    }
    if (run == 0) from.assign(md5);
    ++run;
  }
  NUTCHFS_RETURN_IF_ERROR(it->status());
  end_run();
  r->outdegree = NonEmpty(buckets, PowerOfTwoLabel);
  return Status::OK();
}

}  // namespace

std::string_view HostOfUrl(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  size_t end = url.find_first_of("/?#", scheme + 3);
  return url.substr(0, end);
}

Result<StatsReport> ComputeStats(const Reader& reader, const StatsOptions& options) {
  StatsReport r;
  r.pages = reader.NumPages();
  r.links = reader.NumLinks();
  for (int t = 0; t < kNumTables; ++t) r.tables[t] = reader.Size(static_cast<TableId>(t));
  r.quick = options.quick;
  if (options.quick) return r;
  NUTCHFS_RETURN_IF_ERROR(ScanPages(reader, options, &r));
  NUTCHFS_RETURN_IF_ERROR(ScanInlinks(reader, options, &r));
  NUTCHFS_RETURN_IF_ERROR(ScanOutdegree(reader, options, &r));
  return r;
}

StatsReport QuickStats(const std::vector<const Manifest*>& sections) {
  StatsReport r;
  r.quick = true;
  for (const Manifest* m : sections) {
    r.pages += m->num_pages();
    r.links += m->num_links();
    for (int t = 0; t < kNumTables; ++t) {
      r.tables[t] = Sum(r.tables[t], SizeOf(*m, static_cast<TableId>(t)));
    }
  }
  return r;
}

}  // namespace webdb
