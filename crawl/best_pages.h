// The in-memory selection of `generate` (docs/CRAWL.md, "Generate"): offered every due
// page in url order, it keeps the candidates for the fetch list, the best pages seen so
// far (score descending, then url), at most top_n of them and at most max_per_group of a
// group, and hands out the final selection best first.
//
// The candidates are records in one arena of fixed-size chunks (the page's rank, group
// and pagesByURL row), appended in url order; no url is ever compared. Now and then a
// compaction sorts the records by (score, position), which is (score, url) because the
// arena is in url order, keeps the selection of the pages seen so far, slides the kept
// records down over the dropped ones and, once top_n are kept, sets the rank of the
// top_n-th as a threshold: a later page (a greater url) whose rank is not better can
// never be selected and is turned away by one comparison. In the same way a page is
// turned away, and counted as capped, when its group already holds max_per_group records
// none of which has a worse rank: they are all better (an equal rank, an earlier url).
//
// The candidates' memory, counted as the chunks held, one 16-byte sort entry per record
// and the group table, never exceeds memory_budget. When, right after a compaction, the
// candidates and the next page would take more than 3/4 of it, Offer answers false: the
// next compactions would free too little to pay for themselves, and the caller selects
// by sorting instead. Not thread-safe.
#ifndef CRAWL_BEST_PAGES_H_
#define CRAWL_BEST_PAGES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "crawl/generator.h"

namespace crawl {

class BestPages {
 public:
  // Takes options' top_n, max_per_group, group_by and memory_budget.
  explicit BestPages(const GenerateOptions& options);
  BestPages(const BestPages&) = delete;
  BestPages& operator=(const BestPages&) = delete;

  // Offers the next due page. REQUIRES: urls strictly ascending from one call to the next
  // (pagesByURL's order: it breaks ties in score). False when the candidates no longer
  // fit in the budget; the object is then of no further use.
  bool Offer(const webdb::Page& page);

  // Calls emit on each selected page, best first, counting them in *selected; an error
  // from emit stops and is returned. Once, after the last Offer.
  Status Emit(const std::function<Status(const webdb::Page&)>& emit, uint64_t* selected);

  // Due pages left out by the per-group cap, except those already left out for top_n
  // better candidates.
  uint64_t capped() const { return capped_; }
  uint64_t compactions() const { return compactions_; }
  // The most memory the candidates took, as counted against the budget.
  size_t peak_memory() const { return peak_memory_; }

 private:
  // A dropped record's group; the cached group id after a compaction renumbered them.
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Entry;
  struct GroupState {
    uint64_t held = 0;        // records
    uint32_t worst_rank = 0;  // the greatest rank among them
  };
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  using GroupIds = std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>;

  bool capping() const { return max_per_group_ > 0; }
  // The memory counted against the budget once a record of record_bytes (and, with a
  // cap, a group named by group_bytes) is added.
  size_t MemoryWith(size_t record_bytes, size_t group_bytes) const;
  // The name of url's group, kept as last_group_.
  std::string_view GroupName(const std::string& url);
  // The id of last_group_, kNone when it is not in the table.
  uint32_t FindGroup();
  // Adds last_group_ to the table; kNone when the ids have run out.
  // REQUIRES: FindGroup() == kNone.
  uint32_t AddGroup();
  bool TurnedAway(uint32_t rank) const { return full_ && rank >= worst_rank_; }
  void Append(uint32_t rank, uint32_t group, const std::string& url);
  char* At(uint64_t pos) const;
  void Drop(uint64_t pos);

  // Every record, best first.
  std::vector<Entry> SortedEntries() const;
  // Marks the records that are not in the selection of the entries' pages as dropped (in
  // the entries and the arena) and sets the thresholds.
  void Select(std::vector<Entry>& entries);
  void Compact();
  // Forgets the groups without a kept record; the others get dense ids, and remap[old id]
  // is the new one.
  std::vector<uint32_t> RenumberGroups();
  // Moves the kept records down over the dropped ones, in order, and frees the chunks
  // left empty.
  void Slide(const std::vector<uint32_t>& remap);

  const uint64_t top_n_;
  const uint64_t max_per_group_;
  const GenerateOptions::GroupBy group_by_;
  const size_t memory_budget_;

  struct Chunk {
    std::unique_ptr<char[]> bytes;  // kChunkBytes
    size_t used = 0;
  };
  std::vector<Chunk> chunks_;  // the records, in url order
  uint64_t records_ = 0;
  uint64_t added_ = 0;  // records appended since the last compaction
  uint64_t kept_ = 0;   // records kept by the last compaction
  bool full_ = false;   // top_n records kept: worst_rank_ is a threshold
  uint32_t worst_rank_ = 0;

  GroupIds group_ids_;
  std::vector<GroupState> groups_;
  size_t group_bytes_ = 0;
  // Consecutive pages mostly share their host: the last host's group and its id (kNoId
  // after a compaction renumbered the groups).
  bool has_last_ = false;
  std::string last_host_;
  std::string last_group_;
  uint32_t last_group_id_ = kNone;

  std::string value_;  // the pagesByURL value being appended
  uint64_t capped_ = 0;
  uint64_t compactions_ = 0;
  size_t peak_memory_ = 0;
};

}  // namespace crawl

#endif  // CRAWL_BEST_PAGES_H_
