// The graph a rank iterates over (docs/DESIGN.md, "Link analysis"), derived once a session
// from the tables of each writer's section:
//   - ReadSectionGraph: pagesByMD5 read beside linksByMD5 gives the pages file (outdeg and
//     flags in id order, ids being positions in pagesByMD5 order), the starting scores,
//     and, into the urls stream, each page's (url -> writer, id) and each link's
//     (target url -> writer, group);
//   - RankLayout: every writer's counts, shared, make ids, groups and blocks global (the
//     writers' ranges one after the other, in writer order);
//   - RouteEdges: the urls stream, merged by url at the writer its url's hash falls to,
//     pairs each target with its page's id, giving the edges (block, group -> target
//     id), which go to the writer of the target;
//   - WriteEdges: that writer writes them into its edges file.
// Functions over tables, iterators and sinks; thread-safe on distinct arguments.
#ifndef WEBDB_RANK_RANK_GRAPH_H_
#define WEBDB_RANK_RANK_GRAPH_H_

#include <cstdint>
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

// The key of the urls stream for url: the big-endian 64-bit XXH3 hash of the url, then
// the url. A page and the links to it meet wherever the stream is sorted; the hash first
// makes the sort's first radix pass split the keys evenly (urls share long prefixes), and
// spreads the stream over the writers like md5s (routed by the md5 tables' split keys).
void SetUrlJoinKey(std::string_view url, std::string* key);
std::string_view UrlOfJoinKey(std::string_view key);

// Writes pages and scores (RunWriters of the two files) for every page of pages_by_md5,
// in order, checking each starting score (CheckStartScore), and adds to urls a page edit
// (key the url's join key, order 0, kind 0) and a target edit for each link (key the
// target url's join key, order 1, kind 1), their values the writer and the page id, or
// the group, within it (varints).
Result<SectionCounts> ReadSectionGraph(const LayeredTable& pages_by_md5,
                                       const LayeredTable& links_by_md5, int writer,
                                       RunWriter& pages, RunWriter& scores, EditSink& urls,
                                       const ProgressFn& progress);

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
  // The keys of the edges stream where writers 1..k-1 begin (their first blocks).
  std::vector<std::string> EdgeSplits() const;

 private:
  std::vector<Share> shares_;
  std::vector<uint64_t> page_base_, group_base_, block_base_;  // k + 1 prefix sums each
};

// Reads the urls stream (every page edit before the target edits of its url) and adds to
// edges, for every link, key EdgeKey(global block of the target, global group) and order
// the target's global id. A target without a page is Corruption naming its url.
Status RouteEdges(EditIterator& urls, const RankLayout& layout, EditSink& edges);

// Writes the edges stream this writer received into its edges file, blocks numbered from
// its own first. Corruption for an edge outside this writer's ids.
Status WriteEdges(EditIterator& edges, const RankLayout& layout, int self, EdgeWriter& out);

}  // namespace webdb

#endif  // WEBDB_RANK_RANK_GRAPH_H_
