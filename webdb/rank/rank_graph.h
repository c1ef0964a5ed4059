// The graph a rank iterates over (docs/DESIGN.md, "Link analysis"), derived once a session from the
// tables of each writer's section:
//   - ReadSectionGraph: pagesByMD5 read beside linksByMD5 gives the pages file (outdeg and flags in
//     id order, ids being positions in pagesByMD5 order), the starting scores, the md5s of the
//     groups (in group order), and, into the urls stream, each page's (url -> writer, id);
//   - RankLayout: every writer's counts, shared, make ids, groups and blocks global (the writers'
//     ranges one after the other, in writer order);
//   - JoinLinks: the urls stream, sorted by url at the writer of the url, merged with that writer's
//     linksByURL (already in url order) gives each link its target's id: the edges (block, md5 ->
//     target id), which go to the writer of the target;
//   - WriteEdges: that writer finds each md5's group in the writers' groups (in md5 order, as the
//     edges of a block are) and writes the edges into its edges file.
// Only the N pages are sorted by url; the L links are sorted once, as edges.
// Functions over tables, iterators and sinks; thread-safe on distinct arguments.
#ifndef WEBDB_RANK_RANK_GRAPH_H_
#define WEBDB_RANK_RANK_GRAPH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "webdb/rank/rank_files.h"
#include "webdb/table/layered_table.h"
#include "webdb/util/progress.h"

namespace webdb {

struct SectionCounts {
  uint64_t pages = 0;
  uint64_t groups = 0;
};

// Writes pages and scores (RunWriters of the two files) for every page of pages_by_md5, in order,
// checking each starting score (CheckStartScore), and groups (the md5 of each group, in order), and
// adds to urls a page edit (key the url, order 0, kind 0, value the writer and the page id within
// it, varints).
Result<SectionCounts> ReadSectionGraph(const LayeredTable& pages_by_md5,
                                       const LayeredTable& links_by_md5, int writer,
                                       RunWriter& pages, RunWriter& scores, RunWriter& groups,
                                       EditSink& urls, const ProgressFn& progress);

// Ids, groups and blocks of every writer, and where each writer's begin.
class RankLayout {
 public:
  // A writer's counts and the ids its blocks hold, as shared with the others.
  struct Share {
    uint64_t pages = 0;
    uint64_t groups = 0;
    uint64_t block_ids = 1;
  };
  static std::string Encode(const Share& share);
  // Corruption naming the writer when a value is malformed.
  static Result<RankLayout> Decode(const std::vector<std::string>& shares);

  int writers() const { return static_cast<int>(shares_.size()); }
  uint64_t total_pages() const { return page_base_.back(); }
  const Share& of(int w) const { return shares_[w]; }
  uint64_t page_base(int w) const { return page_base_[w]; }
  uint64_t group_base(int w) const { return group_base_[w]; }
  uint64_t block_base(int w) const { return block_base_[w]; }
  uint64_t blocks(int w) const { return block_base_[w + 1] - block_base_[w]; }
  // The keys of the edges stream where writers 1..k-1 begin (their first blocks, BlockKey).
  std::vector<std::string> EdgeSplits() const;

 private:
  std::vector<Share> shares_;
  std::vector<uint64_t> page_base_, group_base_, block_base_;  // k + 1 prefix sums each
};

// Merges the urls stream (sorted by url) with links_by_url (this writer's section) and adds to
// edges, for every link row, key SetEdgeStreamKey(global block of the target, linking md5) and
// order the target's global id. A target without a page is Corruption naming its url.
Status JoinLinks(EditIterator& urls, const LayeredTable& links_by_url, const RankLayout& layout,
                 EditSink& edges);

// Writer w's groups (broadcast 0), as received here.
using OpenGroupsFn = std::function<Result<std::unique_ptr<EditIterator>>(int w)>;

// Writes the edges stream this writer received (sorted by key and order) into its edges file,
// blocks numbered from its own first, each md5 replaced by its global group: the writers' groups
// are read in writer order, once a block. An edge from an md5 that is no group (a link without its
// source page, which the source rule forbids) is no edge. Corruption for an edge outside this
// writer's ids, or groups out of md5 order.
Status WriteEdges(EditIterator& edges, const RankLayout& layout, int self,
                  const OpenGroupsFn& open_groups, EdgeWriter& out);

}  // namespace webdb

#endif  // WEBDB_RANK_RANK_GRAPH_H_
