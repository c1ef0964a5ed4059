#include "crawl/generator.h"

#include <malloc.h>

#include <bit>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "crawl/domain.h"
#include "crawl/url.h"
#include "webdb/sort/sorter.h"

namespace crawl {

namespace {

constexpr size_t kScoreKeyBytes = 4;

// Memory of BestPages beside the objects themselves: a tree node's links and color plus
// the allocator's header (libstdc++ and glibc: 32 + 16), a string's allocator header and
// rounding, and a group's own members set.
constexpr size_t kNodeBytes = 48;
constexpr size_t kHeapStringBytes = 16;
constexpr size_t kGroupBytes = 64;

// Scores as unsigned integers that ascend from the highest score to the lowest.
uint32_t DescendingScoreBits(float score) {
  uint32_t bits = std::bit_cast<uint32_t>(score);
  bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  return ~bits;
}

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

struct Candidate;

// Best first: the order of the sort key (score descending, then url bytewise).
struct BetterFirst {
  bool operator()(const Candidate& a, const Candidate& b) const;
  bool operator()(const Candidate* a, const Candidate* b) const { return (*this)(*a, *b); }
};

using GroupMembers = std::set<const Candidate*, BetterFirst>;
using GroupMap = std::map<std::string, GroupMembers, std::less<>>;

struct Candidate {
  uint32_t rank;  // DescendingScoreBits(page.score)
  webdb::Page page;
  GroupMap::iterator group;  // when grouped
};

bool BetterFirst::operator()(const Candidate& a, const Candidate& b) const {
  return a.rank != b.rank ? a.rank < b.rank : a.page.url < b.page.url;
}

// The selection in memory: the best due pages seen so far, at most top_n of them and at
// most max_per_group of a group. A page is left out only when it can never be selected:
// top_n better candidates are held (they are only ever replaced by better ones), or
// max_per_group better pages of its group are. docs/CRAWL.md, "Generate".
class BestPages {
 public:
  explicit BestPages(const GenerateOptions& options) : options_(options) {}

  // False once the candidates take more than the memory budget.
  bool Offer(webdb::Page&& page, GenerateStats* stats) {
    Candidate c{DescendingScoreBits(page.score), std::move(page), groups_.end()};
    if (best_.size() >= options_.top_n && (best_.empty() || !BetterFirst()(c, *best_.rbegin()))) {
      return true;
    }
    if (options_.max_per_group > 0) {
      c.group = GroupFor(c.page.url);
      GroupMembers& members = c.group->second;
      if (members.size() >= options_.max_per_group && !BetterFirst()(c, **members.rbegin())) {
        ++stats->capped;
        return true;
      }
    }
    memory_ += CandidateBytes(c);
    // pagesByURL is in url order: among pages of equal score, each goes last.
    auto it = best_.insert(best_.end(), std::move(c));
    if (it->group != groups_.end()) {
      GroupMembers& members = it->group->second;
      members.insert(members.end(), &*it);
      if (members.size() > options_.max_per_group) {
        ++stats->capped;
        Remove(best_.find(**members.rbegin()));
      }
    }
    if (best_.size() > options_.top_n) Remove(std::prev(best_.end()));
    return memory_ <= options_.memory_budget;
  }

  Status Emit(const std::function<Status(const webdb::Page&)>& emit, GenerateStats* stats) {
    for (const Candidate& c : best_) {
      NUTCHFS_RETURN_IF_ERROR(emit(c.page));
      ++stats->selected;
    }
    return Status::OK();
  }

 private:
  // In best_, and with a cap in its group's members.
  size_t CandidateBytes(const Candidate& c) const {
    size_t bytes = kNodeBytes + sizeof(Candidate) + kHeapStringBytes + c.page.url.capacity();
    return options_.max_per_group > 0 ? bytes + kNodeBytes + sizeof(void*) : bytes;
  }

  static size_t GroupBytes(const std::string& name) {
    return kNodeBytes + sizeof(GroupMap::value_type) + kGroupBytes + name.capacity();
  }

  // Consecutive pages of pagesByURL mostly share their host: its group is looked up once.
  GroupMap::iterator GroupFor(const std::string& url) {
    std::string_view host = HostOfUrl(url);
    if (last_group_ != groups_.end() && host == last_host_) return last_group_;
    last_host_ = host;
    std::string name = GroupOf(url, options_.group_by);
    auto it = groups_.find(name);
    if (it == groups_.end()) {
      memory_ += GroupBytes(name);
      it = groups_.emplace(std::move(name), GroupMembers()).first;
    }
    return last_group_ = it;
  }

  void Remove(std::set<Candidate, BetterFirst>::iterator it) {
    GroupMap::iterator group = it->group;
    if (group != groups_.end()) {
      group->second.erase(&*it);
      if (group->second.empty()) {
        memory_ -= GroupBytes(group->first);
        if (group == last_group_) last_group_ = groups_.end();
        groups_.erase(group);
      }
    }
    memory_ -= CandidateBytes(*it);
    best_.erase(it);
  }

  const GenerateOptions& options_;
  std::set<Candidate, BetterFirst> best_;
  GroupMap groups_;
  std::string last_host_;
  GroupMap::iterator last_group_ = groups_.end();
  size_t memory_ = 0;
};

// Offers every due page to best; false as soon as they do not fit in memory.
Result<bool> SelectInMemory(const webdb::Reader& reader, const GenerateOptions& options,
                            BestPages& best, GenerateStats* stats) {
  webdb::PageCursor cursor = reader.Pages();
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(auto page, cursor.Next());
    if (!page) return true;
    ++stats->pages;
    if (page->next_fetch > options.now_ms) continue;
    ++stats->due;
    if (!best.Offer(std::move(*page), stats)) return false;
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
    if (fits) emitted = best.Emit(emit, stats);
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
