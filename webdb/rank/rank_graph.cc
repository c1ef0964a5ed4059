#include "webdb/rank/rank_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <span>

#include "webdb/table/record.h"
#include "webdb/util/coding.h"

namespace webdb {
namespace {

constexpr uint64_t kProgressEvery = 1 << 16;

std::string WriterAndNumber(int writer, uint64_t n) {
  std::string v;
  PutVarint32(&v, static_cast<uint32_t>(writer));
  PutVarint64(&v, n);
  return v;
}

// One md5's pages beside its link rows: both in url order.
class GraphReader {
 public:
  GraphReader(const LayeredTable& pages, const LayeredTable& links, int writer, RunWriter& page_out,
              RunWriter& score_out, RunWriter& group_out, EditSink& urls,
              const ProgressFn& progress)
      : pages_(pages.NewIterator()),
        links_(links.NewIterator()),
        counter_(links.NewIterator()),
        writer_(writer),
        page_out_(page_out),
        score_out_(score_out),
        group_out_(group_out),
        urls_(urls),
        progress_(progress),
        total_(pages.num_records()) {}

  Result<SectionCounts> Run() {
    pages_->SeekToFirst();
    links_->SeekToFirst();
    counter_->SeekToFirst();
    for (; pages_->Valid(); pages_->Next()) {
      const std::string_view key = pages_->key();
      if (Md5OfKey(key) != md5_) NUTCHFS_RETURN_IF_ERROR(StartMd5(Md5OfKey(key)));
      NUTCHFS_RETURN_IF_ERROR(AddPage(key, pages_->value()));
    }
    NUTCHFS_RETURN_IF_ERROR(pages_->status());
    NUTCHFS_RETURN_IF_ERROR(links_->status());
    NUTCHFS_RETURN_IF_ERROR(counter_->status());
    return counts_;
  }

 private:
  // The pages of a new md5 begin: its links are counted (its link rows skipped by the counter), and
  // make a group if there are any.
  Status StartMd5(std::string_view md5) {
    md5_.assign(md5);
    first_ = true;
    // Links of md5s without pages (none, by the source rule) are no edges.
    while (links_->Valid() && Md5OfKey(links_->key()) < md5_) links_->SkipRowsSharing(16);
    while (counter_->Valid() && Md5OfKey(counter_->key()) < md5_) counter_->SkipRowsSharing(16);
    links_of_md5_ = 0;
    if (counter_->Valid() && Md5OfKey(counter_->key()) == md5_) {
      links_of_md5_ = counter_->SkipRowsSharing(16);
      ++counts_.groups;
      NUTCHFS_RETURN_IF_ERROR(group_out_.AddMd5(md5_));
    }
    return links_->status();
  }

  // Passes the link rows of the current md5 whose urls are below url: links_ then stands on the
  // page's own link, if it has one.
  Status LinksBelow(std::string_view url) {
    for (; links_->Valid(); links_->Next()) {
      const std::string_view key = links_->key();
      if (Md5OfKey(key) != md5_ || key.substr(16) >= url) break;
    }
    return links_->status();
  }

  Status AddPage(std::string_view key, std::string_view value) {
    const std::string_view url = key.substr(16);
    NUTCHFS_RETURN_IF_ERROR(LinksBelow(url));
    PageInfo info;
    if (first_) info.flags |= PageInfo::kFirstOfMd5;
    if (links_of_md5_ > 0) info.flags |= PageInfo::kInGroup;
    info.outdeg = static_cast<uint32_t>(links_of_md5_);
    if (links_->Valid() && Md5OfKey(links_->key()) == md5_ && links_->key().substr(16) == url) {
      // Its own link: an edge for the other pages of the md5 (JoinLinks makes it, as every other),
      // not for this one.
      info.flags |= PageInfo::kSelfLink;
      --info.outdeg;
      links_->Next();
    }
    first_ = false;
    NUTCHFS_ASSIGN_OR_RETURN(Page page, DecodePageByMd5(key, value));
    NUTCHFS_RETURN_IF_ERROR(CheckStartScore(page.score, TableId::kPagesByMd5, key));
    NUTCHFS_RETURN_IF_ERROR(page_out_.AddPage(info));
    NUTCHFS_RETURN_IF_ERROR(score_out_.AddScore(page.score));
    NUTCHFS_RETURN_IF_ERROR(
        urls_.Add(EditView{url, 0, 0, WriterAndNumber(writer_, counts_.pages)}));
    if (++counts_.pages % kProgressEvery == 0 && progress_) {
      progress_({"rank graph", counts_.pages, total_});
    }
    return Status::OK();
  }

  std::unique_ptr<Iterator> pages_;
  std::unique_ptr<Iterator> links_;    // the link rows, taken one by one
  std::unique_ptr<Iterator> counter_;  // ahead of links_: counts each md5's rows
  const int writer_;
  RunWriter& page_out_;
  RunWriter& score_out_;
  RunWriter& group_out_;
  EditSink& urls_;
  const ProgressFn& progress_;
  const uint64_t total_;
  std::string md5_;
  bool first_ = false;
  uint64_t links_of_md5_ = 0;
  SectionCounts counts_;
};

// The global id of the page a urls stream edit names, and its block, checked against the layout.
struct Target {
  uint64_t id = 0;
  uint32_t block = 0;
};

Result<Target> DecodeTarget(const EditView& e, const RankLayout& layout) {
  std::string_view v = e.value;
  uint32_t w = 0;
  uint64_t n = 0;
  if (GetVarint32(&v, &w) && GetVarint64(&v, &n) && v.empty() && e.kind == 0 &&
      w < static_cast<uint32_t>(layout.writers()) && n < layout.of(static_cast<int>(w)).pages) {
    const int writer = static_cast<int>(w);
    return Target{
        layout.page_base(writer) + n,
        static_cast<uint32_t>(layout.block_base(writer) + n / layout.of(writer).block_ids)};
  }
  return Err(Status::Corruption(fmt::format("rank urls stream: a malformed edit for url {}",
                                            DescribeKey(TableId::kPagesByUrl, e.key))));
}

// The global group of an md5, found among the writers' groups (broadcast 0) read in writer order,
// which is md5 order: asked for md5s in increasing order.
class GroupFinder {
 public:
  GroupFinder(const RankLayout& layout, const OpenGroupsFn& open) : layout_(layout), open_(open) {}

  // The group of md5, or nullopt when it is none.
  Result<std::optional<uint64_t>> Find(std::string_view md5) {
    while (true) {
      if (at_ == run_.size()) {
        NUTCHFS_ASSIGN_OR_RETURN(bool more, Fill());
        if (!more) return std::nullopt;
      }
      const std::string_view here = Md5Bytes(run_[at_]);
      if (here >= md5) {
        if (here != md5) return std::nullopt;
        return next_;
      }
      NUTCHFS_RETURN_IF_ERROR(Pass(here));
    }
  }

 private:
  Status Pass(std::string_view md5) {
    if (!last_.empty() && md5 <= last_) {
      return Status::Corruption(
          fmt::format("rank groups of writer {}: group {} out of md5 order", writer_, next_));
    }
    last_.assign(md5);
    ++at_;
    ++next_;
    return Status::OK();
  }

  // Reads on into the next run of groups, opening the next writer's at the end of one.
  Result<bool> Fill() {
    at_ = 0;
    while (true) {
      if (reader_ == nullptr) {
        if (writer_ == layout_.writers()) return false;
        NUTCHFS_ASSIGN_OR_RETURN(in_, open_(writer_));
        reader_ =
            std::make_unique<RunReader>(*in_, fmt::format("rank groups of writer {}", writer_));
      }
      NUTCHFS_ASSIGN_OR_RETURN(run_, reader_->Md5s(kRunEntries));
      if (!run_.empty()) return true;
      if (next_ != layout_.group_base(writer_ + 1)) {
        return Err(Status::Corruption(fmt::format("rank groups of writer {}: {} groups, not {}",
                                                  writer_, next_ - layout_.group_base(writer_),
                                                  layout_.of(writer_).groups)));
      }
      reader_.reset();
      in_.reset();
      ++writer_;
    }
  }

  const RankLayout& layout_;
  const OpenGroupsFn& open_;
  int writer_ = 0;     // whose groups reader_ reads
  uint64_t next_ = 0;  // the global group of run_[at_]
  std::string last_;   // the md5 passed last
  std::unique_ptr<EditIterator> in_;
  std::unique_ptr<RunReader> reader_;
  std::span<const Md5> run_;
  size_t at_ = 0;
};

}  // namespace

Result<SectionCounts> ReadSectionGraph(const LayeredTable& pages_by_md5,
                                       const LayeredTable& links_by_md5, int writer,
                                       RunWriter& pages, RunWriter& scores, RunWriter& groups,
                                       EditSink& urls, const ProgressFn& progress) {
  return GraphReader(pages_by_md5, links_by_md5, writer, pages, scores, groups, urls, progress)
      .Run();
}

std::string RankLayout::Encode(const Share& share) {
  std::string v;
  PutVarint64(&v, share.pages);
  PutVarint64(&v, share.groups);
  PutVarint64(&v, share.block_ids);
  return v;
}

Result<RankLayout> RankLayout::Decode(const std::vector<std::string>& shares) {
  RankLayout layout;
  layout.page_base_.push_back(0);
  layout.group_base_.push_back(0);
  layout.block_base_.push_back(0);
  for (size_t w = 0; w < shares.size(); ++w) {
    std::string_view v = shares[w];
    Share s;
    if (!GetVarint64(&v, &s.pages) || !GetVarint64(&v, &s.groups) ||
        !GetVarint64(&v, &s.block_ids) || !v.empty() || s.block_ids == 0 ||
        s.block_ids > UINT32_MAX || s.groups > s.pages || s.pages > kMaxRankPages) {
      return Err(Status::Corruption(fmt::format("rank: writer {} shared malformed counts", w)));
    }
    layout.shares_.push_back(s);
    layout.page_base_.push_back(layout.page_base_.back() + s.pages);
    layout.group_base_.push_back(layout.group_base_.back() + s.groups);
    layout.block_base_.push_back(layout.block_base_.back() +
                                 (s.pages + s.block_ids - 1) / s.block_ids);
  }
  if (layout.total_pages() > kMaxRankPages) {
    return Err(Status::InvalidArgument(fmt::format(
        "rank: {} pages, more than the {} it sums exactly", layout.total_pages(), kMaxRankPages)));
  }
  return layout;
}

std::vector<std::string> RankLayout::EdgeSplits() const {
  std::vector<std::string> splits;
  for (int w = 1; w < writers(); ++w) {
    splits.push_back(BlockKey(static_cast<uint32_t>(block_base_[w])));
  }
  return splits;
}

Status JoinLinks(EditIterator& urls, const LayeredTable& links_by_url, const RankLayout& layout,
                 EditSink& edges) {
  std::string key;
  Target target;
  bool have_page = false;
  auto rows = links_by_url.NewIterator();
  for (rows->SeekToFirst(); rows->Valid(); rows->Next()) {
    const std::string_view row = rows->key();
    if (row.size() < 17) return RowError(TableId::kLinksByUrl, row, Status::Corruption("short"));
    const std::string_view url = UrlOfLinkUrlKey(row);
    if (!have_page || urls.edit().key != url) {
      if (have_page) urls.Next();
      while (urls.Valid() && urls.edit().key < url) urls.Next();
      NUTCHFS_RETURN_IF_ERROR(urls.status());
      if (!urls.Valid() || urls.edit().key != url) {
        return Status::Corruption(
            fmt::format("rank: a link targets pagesByURL {}, which is missing",
                        DescribeKey(TableId::kPagesByUrl, url)));
      }
      NUTCHFS_ASSIGN_OR_RETURN(target, DecodeTarget(urls.edit(), layout));
      have_page = true;
    }
    SetEdgeStreamKey(target.block, row.substr(url.size() + 1), &key);
    NUTCHFS_RETURN_IF_ERROR(edges.Add(EditView{key, target.id, 0, {}}));
  }
  NUTCHFS_RETURN_IF_ERROR(rows->status());
  return urls.status();
}

Status WriteEdges(EditIterator& edges, const RankLayout& layout, int self,
                  const OpenGroupsFn& open_groups, EdgeWriter& out) {
  const uint64_t first_block = layout.block_base(self);
  const uint64_t ids = layout.of(self).block_ids;
  std::unique_ptr<GroupFinder> groups;
  uint64_t block = UINT64_MAX;
  for (; edges.Valid(); edges.Next()) {
    const EditView& e = edges.edit();
    if (e.key.size() != kEdgeStreamKeySize) {
      return Status::Corruption(fmt::format("rank: a malformed edge to id {}", e.order));
    }
    const uint64_t b = DecodeBigEndian64(e.key.data()) >> 32;
    const uint64_t id = e.order - layout.page_base(self);
    const uint64_t local_block = b - first_block;
    if (b < first_block || local_block >= layout.blocks(self) || e.order < layout.page_base(self) ||
        id / ids != local_block) {
      return Status::Corruption(fmt::format(
          "rank: edge to id {} in block {}, which writer {} does not hold", e.order, b, self));
    }
    if (b != block) {
      block = b;
      groups = std::make_unique<GroupFinder>(layout, open_groups);
    }
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<uint64_t> group, groups->Find(e.key.substr(4)));
    if (!group) continue;
    NUTCHFS_RETURN_IF_ERROR(out.Add(static_cast<uint32_t>(local_block), *group,
                                    static_cast<uint32_t>(id - local_block * ids)));
  }
  return edges.status();
}

}  // namespace webdb
