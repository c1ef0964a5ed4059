#include "crawl/generator.h"

#include <bit>

#include "crawl/domain.h"
#include "crawl/url.h"
#include "webdb/sorter.h"

namespace crawl {

namespace {

constexpr size_t kScoreKeyBytes = 4;

std::string GroupOf(const std::string& url, GenerateOptions::GroupBy by) {
  std::string_view host = HostOfUrl(url);
  return by == GenerateOptions::GroupBy::kHost ? std::string(host) : RegistrableDomain(host);
}

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

// Feeds every due page into out, keyed by group + '\0' when grouping.
Status ReadDuePages(const webdb::Reader& reader, const GenerateOptions& options, bool grouped,
                    webdb::Sorter& out, GenerateStats* stats) {
  webdb::PageCursor cursor = reader.Pages();
  std::string key, value, prefix;
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(auto page, cursor.Next());
    if (!page) return Status::OK();
    ++stats->pages;
    if (page->next_fetch > options.now_ms) continue;
    ++stats->due;
    if (grouped) {
      prefix = GroupOf(page->url, options.group_by);
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

}  // namespace

std::string DescendingScoreKey(float score) {
  uint32_t bits = std::bit_cast<uint32_t>(score);
  // Ascending order of floats as unsigned integers, then inverted for descending.
  bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  bits = ~bits;
  std::string key(kScoreKeyBytes, '\0');
  for (size_t i = 0; i < kScoreKeyBytes; ++i) {
    key[i] = static_cast<char>(bits >> (8 * (kScoreKeyBytes - 1 - i)));
  }
  return key;
}

Status Generate(nutchfs::Env& env, const webdb::Reader& reader, const GenerateOptions& options,
                const std::function<Status(const webdb::Page&)>& emit, GenerateStats* stats) {
  *stats = GenerateStats();
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

}  // namespace crawl
