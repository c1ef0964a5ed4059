#include "crawl/generator.h"

#include <malloc.h>

#include <bit>
#include <optional>

#include "crawl/best_pages.h"
#include "crawl/domain.h"
#include "crawl/url.h"
#include "webdb/sort/sorter.h"

namespace crawl {

namespace {

constexpr size_t kScoreKeyBytes = 4;

// Key = prefix + score key + url, value = the page's pagesByURL value.
Status AddPage(webdb::Sorter& sorter, const std::string& prefix, const webdb::Page& page,
               std::string* key, std::string* value) {
  *key = prefix;
  *key += DescendingScoreKey(page.score);
  *key += page.url;
  value->clear();
  webdb::EncodePageByUrlValue(page, value);
  return sorter.Add(webdb::EditView{*key, 0, 0, *value});
}

webdb::RowProgress SelectionProgress(const webdb::Reader& reader, const GenerateOptions& options) {
  return webdb::RowProgress(options.progress, "selecting due pages", reader.NumPages());
}

// Feeds every due page into out, keyed by group + '\0' when grouping.
Status ReadDuePages(const webdb::Reader& reader, const GenerateOptions& options, bool grouped,
                    webdb::Sorter& out, GenerateStats* stats) {
  webdb::PageCursor cursor = reader.Pages();
  webdb::RowProgress progress = SelectionProgress(reader, options);
  std::string key, value, prefix;
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(auto page, cursor.Next());
    if (!page) return Status::OK();
    progress.Row();
    ++stats->pages;
    if (page->next_fetch > options.now_ms) continue;
    ++stats->due;
    if (grouped) {
      prefix = GroupOfUrl(page->url, options.group_by);
      prefix.push_back('\0');
    }
    NUTCHFS_RETURN_IF_ERROR(AddPage(out, prefix, *page, &key, &value));
  }
}

// Keeps the best max_per_group pages of each group (input sorted by group, then best
// first) and re-keys them by score alone.
Status CapGroups(webdb::EditIterator& in, const GenerateOptions& options, webdb::Sorter& out,
                 GenerateStats* stats) {
  std::string group;
  uint64_t taken = 0;
  std::string value;
  for (; in.Valid(); in.Next()) {
    std::string_view key = in.edit().key;
    size_t nul = key.find('\0');
    std::string_view this_group = key.substr(0, nul);
    if (this_group != group) {
      group = std::string(this_group);
      taken = 0;
    }
    if (taken++ >= options.max_per_group) {
      ++stats->capped;
      continue;
    }
    NUTCHFS_RETURN_IF_ERROR(out.Add(webdb::EditView{key.substr(nul + 1), 0, 0, in.edit().value}));
  }
  return in.status();
}

Status EmitTop(webdb::EditIterator& in, const GenerateOptions& options,
               const std::function<Status(const webdb::Page&)>& emit, GenerateStats* stats) {
  for (; in.Valid() && stats->selected < options.top_n; in.Next()) {
    std::string_view url = in.edit().key.substr(kScoreKeyBytes);
    NUTCHFS_ASSIGN_OR_RETURN(webdb::Page page, webdb::DecodePageByUrl(url, in.edit().value));
    NUTCHFS_RETURN_IF_ERROR(emit(page));
    ++stats->selected;
  }
  return in.status();
}

// Offers every due page to best; false as soon as they do not fit in memory.
Result<bool> SelectInMemory(const webdb::Reader& reader, const GenerateOptions& options,
                            BestPages& best, GenerateStats* stats) {
  webdb::PageCursor cursor = reader.Pages();
  webdb::RowProgress progress = SelectionProgress(reader, options);
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(auto page, cursor.Next());
    if (!page) return true;
    progress.Row();
    ++stats->pages;
    if (page->next_fetch > options.now_ms) continue;
    ++stats->due;
    if (!best.Offer(*page)) return false;
  }
}

// The external sorts: one by score, or with a cap one by group then one by score.
Status SelectBySorting(nutchfs::Env& env, const webdb::Reader& reader,
                       const GenerateOptions& options,
                       const std::function<Status(const webdb::Page&)>& emit,
                       GenerateStats* stats) {
  bool grouped = options.max_per_group > 0;
  size_t budget = grouped ? options.memory_budget / 2 : options.memory_budget;
  auto by_score = webdb::Sorter::Create(env, options.tmp_dir, budget, "generate-score");
  if (grouped) {
    auto by_group = webdb::Sorter::Create(env, options.tmp_dir, budget, "generate-group");
    NUTCHFS_RETURN_IF_ERROR(ReadDuePages(reader, options, true, *by_group, stats));
    NUTCHFS_ASSIGN_OR_RETURN(auto groups, by_group->Finish());
    NUTCHFS_RETURN_IF_ERROR(CapGroups(*groups, options, *by_score, stats));
  } else {
    NUTCHFS_RETURN_IF_ERROR(ReadDuePages(reader, options, false, *by_score, stats));
  }
  NUTCHFS_ASSIGN_OR_RETURN(auto best, by_score->Finish());
  return EmitTop(*best, options, emit, stats);
}

}  // namespace

uint32_t DescendingScoreBits(float score) {
  uint32_t bits = std::bit_cast<uint32_t>(score);
  bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  return ~bits;
}

std::string GroupOfUrl(std::string_view url, GenerateOptions::GroupBy by) {
  std::string_view host = HostOfUrl(url);
  return by == GenerateOptions::GroupBy::kHost ? std::string(host) : RegistrableDomain(host);
}

std::string DescendingScoreKey(float score) {
  uint32_t bits = DescendingScoreBits(score);
  std::string key(kScoreKeyBytes, '\0');
  for (size_t i = 0; i < kScoreKeyBytes; ++i) {
    key[i] = static_cast<char>(bits >> (8 * (kScoreKeyBytes - 1 - i)));
  }
  return key;
}

Status Generate(nutchfs::Env& env, const webdb::Reader& reader, const GenerateOptions& options,
                const std::function<Status(const webdb::Page&)>& emit, GenerateStats* stats) {
  *stats = GenerateStats();
  std::optional<Status> emitted;
  {
    BestPages best(options);
    NUTCHFS_ASSIGN_OR_RETURN(bool fits, SelectInMemory(reader, options, best, stats));
    if (fits) {
      emitted = best.Emit(emit, &stats->selected);
      stats->capped = best.capped();
    }
  }
  // The candidates' many small blocks are free now but still held by the allocator,
  // where neither the sorts' buffers nor the lease session's can reuse them: give them
  // back, so that the peak stays near the budget instead of the sum of two.
  ::malloc_trim(0);
  if (emitted) return *emitted;
  *stats = GenerateStats();
  stats->sorted = true;
  return SelectBySorting(env, reader, options, emit, stats);
}

}  // namespace crawl
