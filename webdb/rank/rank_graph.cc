#include "webdb/rank/rank_graph.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>

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
  GraphReader(const LayeredTable& pages, const LayeredTable& links, int writer,
              RunWriter& page_out, RunWriter& score_out, EditSink& urls,
              const ProgressFn& progress)
      : pages_(pages.NewIterator()),
        links_(links.NewIterator()),
        counter_(links.NewIterator()),
        writer_(writer),
        page_out_(page_out),
        score_out_(score_out),
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
    NUTCHFS_RETURN_IF_ERROR(LinksBelow(std::nullopt));
    NUTCHFS_RETURN_IF_ERROR(links_->status());
    NUTCHFS_RETURN_IF_ERROR(counter_->status());
    return counts_;
  }

 private:
  // The pages of a new md5 begin: the last one's links are all taken; this one's are
  // counted (its link rows skipped by the counter), and make a group if there are any.
  Status StartMd5(std::string_view md5) {
    NUTCHFS_RETURN_IF_ERROR(LinksBelow(std::nullopt));
    md5_.assign(md5);
    first_ = true;
    // Links of md5s without pages (none, by the source rule) are no edges.
    while (links_->Valid() && Md5OfKey(links_->key()) < md5_) links_->SkipRowsSharing(16);
    while (counter_->Valid() && Md5OfKey(counter_->key()) < md5_) counter_->SkipRowsSharing(16);
    links_of_md5_ = 0;
    if (counter_->Valid() && Md5OfKey(counter_->key()) == md5_) {
      links_of_md5_ = counter_->SkipRowsSharing(16);
      group_ = counts_.groups++;
    }
    return Status::OK();
  }

  // Takes the link rows of the current md5 whose urls are below url (all with none):
  // each is an edge from its group to the target url.
  Status LinksBelow(std::optional<std::string_view> url) {
    for (; links_->Valid(); links_->Next()) {
      const std::string_view key = links_->key();
      if (Md5OfKey(key) != md5_ || (url && key.substr(16) >= *url)) break;
      NUTCHFS_RETURN_IF_ERROR(AddTarget(key.substr(16)));
    }
    return links_->status();
  }

  Status AddTarget(std::string_view url) {
    SetUrlJoinKey(url, &key_);
    return urls_.Add(EditView{key_, 1, 1, WriterAndNumber(writer_, group_)});
  }

  Status AddPage(std::string_view key, std::string_view value) {
    const std::string_view url = key.substr(16);
    NUTCHFS_RETURN_IF_ERROR(LinksBelow(url));
    PageInfo info;
    if (first_) info.flags |= PageInfo::kFirstOfMd5;
    if (links_of_md5_ > 0) info.flags |= PageInfo::kInGroup;
    info.outdeg = static_cast<uint32_t>(links_of_md5_);
    if (links_->Valid() && Md5OfKey(links_->key()) == md5_ && links_->key().substr(16) == url) {
      // Its own link: an edge for the other pages of the md5, not for this one.
      info.flags |= PageInfo::kSelfLink;
      --info.outdeg;
      NUTCHFS_RETURN_IF_ERROR(AddTarget(url));
      links_->Next();
    }
    first_ = false;
    NUTCHFS_ASSIGN_OR_RETURN(Page page, DecodePageByMd5(key, value));
    NUTCHFS_RETURN_IF_ERROR(CheckStartScore(page.score, TableId::kPagesByMd5, key));
    NUTCHFS_RETURN_IF_ERROR(page_out_.AddPage(info));
    NUTCHFS_RETURN_IF_ERROR(score_out_.AddScore(page.score));
    SetUrlJoinKey(url, &key_);
    NUTCHFS_RETURN_IF_ERROR(
        urls_.Add(EditView{key_, 0, 0, WriterAndNumber(writer_, counts_.pages)}));
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
  EditSink& urls_;
  const ProgressFn& progress_;
  const uint64_t total_;
  std::string md5_;
  bool first_ = false;
  uint64_t links_of_md5_ = 0;
  uint64_t group_ = 0;
  std::string key_;  // of the last edit of the urls stream
  SectionCounts counts_;
};

// A (writer, number) value of the urls stream, checked against the layout.
struct Numbered {
  int writer = 0;
  uint64_t n = 0;
};

Result<Numbered> DecodeNumbered(const EditView& e, const RankLayout& layout) {
  std::string_view v = e.value;
  uint32_t w = 0;
  Numbered out;
  const bool page = e.kind == 0;
  if (GetVarint32(&v, &w) && GetVarint64(&v, &out.n) && v.empty() &&
      w < static_cast<uint32_t>(layout.writers())) {
    out.writer = static_cast<int>(w);
    const uint64_t limit = page ? layout.of(out.writer).pages : layout.of(out.writer).groups;
    if (out.n < limit && e.kind <= 1) return out;
  }
  return Err(
      Status::Corruption(fmt::format("rank urls stream: a malformed edit for url {}",
                                     DescribeKey(TableId::kPagesByUrl, UrlOfJoinKey(e.key)))));
}

}  // namespace

void SetUrlJoinKey(std::string_view url, std::string* key) {
  key->clear();
  PutBigEndian64(key, XXH3_64bits(url.data(), url.size()));
  key->append(url);
}

std::string_view UrlOfJoinKey(std::string_view key) {
  return key.substr(std::min<size_t>(8, key.size()));
}

Result<SectionCounts> ReadSectionGraph(const LayeredTable& pages_by_md5,
                                       const LayeredTable& links_by_md5, int writer,
                                       RunWriter& pages, RunWriter& scores, EditSink& urls,
                                       const ProgressFn& progress) {
  return GraphReader(pages_by_md5, links_by_md5, writer, pages, scores, urls, progress).Run();
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
    splits.push_back(EdgeKey(static_cast<uint32_t>(block_base_[w]), 0));
  }
  return splits;
}

Status RouteEdges(EditIterator& urls, const RankLayout& layout, EditSink& edges) {
  std::string url;  // the join key of the last page edit
  uint64_t target = 0;
  uint32_t block = 0;
  bool have_page = false;
  for (; urls.Valid(); urls.Next()) {
    const EditView& e = urls.edit();
    NUTCHFS_ASSIGN_OR_RETURN(Numbered n, DecodeNumbered(e, layout));
    if (e.kind == 0) {
      url.assign(e.key);
      target = layout.page_base(n.writer) + n.n;
      block =
          static_cast<uint32_t>(layout.block_base(n.writer) + n.n / layout.of(n.writer).block_ids);
      have_page = true;
      continue;
    }
    if (!have_page || e.key != url) {
      return Status::Corruption(
          fmt::format("rank: a link targets pagesByURL {}, which is missing",
                      DescribeKey(TableId::kPagesByUrl, UrlOfJoinKey(e.key))));
    }
    const uint64_t group = layout.group_base(n.writer) + n.n;
    NUTCHFS_RETURN_IF_ERROR(edges.Add(EditView{EdgeKey(block, group), target, 0, {}}));
  }
  return urls.status();
}

Status WriteEdges(EditIterator& edges, const RankLayout& layout, int self, EdgeWriter& out) {
  const uint64_t first_block = layout.block_base(self);
  const uint64_t ids = layout.of(self).block_ids;
  for (; edges.Valid(); edges.Next()) {
    const EditView& e = edges.edit();
    const uint64_t block = e.key.size() == 12 ? DecodeBigEndian64(e.key.data()) >> 32 : 0;
    const uint64_t group = e.key.size() == 12 ? DecodeBigEndian64(e.key.data() + 4) : 0;
    const uint64_t id = e.order - layout.page_base(self);
    const uint64_t local_block = block - first_block;
    if (e.key.size() != 12 || block < first_block || local_block >= layout.blocks(self) ||
        e.order < layout.page_base(self) || id / ids != local_block ||
        group >= layout.group_base(layout.writers())) {
      return Status::Corruption(fmt::format(
          "rank: edge to id {} in block {}, which writer {} does not hold", e.order, block, self));
    }
    NUTCHFS_RETURN_IF_ERROR(out.Add(static_cast<uint32_t>(local_block), group,
                                    static_cast<uint32_t>(id - local_block * ids)));
  }
  return edges.status();
}

}  // namespace webdb
