#include "webdb/rank/rank_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "webdb/db/manifest_table.h"
#include "webdb/db/table_writer.h"
#include "webdb/rank/rank_graph.h"
#include "webdb/rank/rank_passes.h"
#include "webdb/sort/edit_file.h"
#include "webdb/table/table_format.h"
#include "webdb/util/deferred_syncs.h"

namespace webdb {
namespace {

using Clock = std::chrono::steady_clock;

// Share step 0 gives the layout; step i (i >= 1) the L1 change of iteration i-1 and the
// dangling sums of iteration i, 16 bytes each (little-endian two's complement).
constexpr int kLayoutStep = 0;
// Broadcast 0 carries the groups' md5s; broadcast i >= 1 the sums of iteration i.
constexpr int kGroupsBroadcast = 0;

std::string EncodeSums(FixedSum l1, Fixed dangling) {
  std::string v(32, '\0');
  std::memcpy(v.data(), &l1, 16);
  std::memcpy(v.data() + 16, &dangling, 16);
  return v;
}

// The group sums of one iteration, read in global group order from the writers' files
// (writer 0's groups first): the sum of any group at or after the last one asked for.
class SumsCursor {
 public:
  SumsCursor(RankPlumbing& plumbing, int iteration, const RankLayout& layout)
      : plumbing_(plumbing), iteration_(iteration), layout_(layout) {}

  Result<Fixed> At(uint64_t group) {
    if (group < next_) return Err(Bad(group, "groups out of order"));
    while (file_ < layout_.writers() && group >= layout_.group_base(file_ + 1)) {
      ++file_;
      reader_.reset();
      in_.reset();
      next_ = layout_.group_base(file_);
    }
    if (file_ == layout_.writers()) return Err(Bad(group, "no such group"));
    if (in_ == nullptr) {
      NUTCHFS_ASSIGN_OR_RETURN(in_, plumbing_.OpenBroadcast(iteration_, file_));
      reader_ = std::make_unique<RunReader>(
          *in_, fmt::format("rank iteration {} sums of writer {}", iteration_, file_));
    }
    while (next_ <= group) {
      NUTCHFS_ASSIGN_OR_RETURN(std::span<const Fixed> got, reader_->Sums(group + 1 - next_));
      if (got.empty()) return Err(Bad(group, "sums file ends early"));
      next_ += got.size();
      if (next_ > group) return got.back();
    }
    return Err(Bad(group, "unreachable"));
  }

 private:
  Status Bad(uint64_t group, std::string_view why) const {
    return Status::Corruption(
        fmt::format("rank iteration {}: group {}: {}", iteration_, group, why));
  }

  RankPlumbing& plumbing_;
  const int iteration_;
  const RankLayout& layout_;
  int file_ = 0;
  uint64_t next_ = 0;  // the group the reader stands on
  std::unique_ptr<EditIterator> in_;
  std::unique_ptr<RunReader> reader_;
};

class Engine {
 public:
  Engine(nutchfs::Env& env, const Manifest& old, const RankParams& params, RankPlumbing& plumbing)
      : env_(env), old_(old), params_(params), plumbing_(plumbing), self_(plumbing.self()) {}

  Result<RankOutcome> Run() {
    NUTCHFS_RETURN_IF_ERROR(Graph());
    RankOutcome outcome;
    outcome.pages = layout_.total_pages();
    if (outcome.pages == 0) return outcome;
    NUTCHFS_RETURN_IF_ERROR(Edges());
    NUTCHFS_RETURN_IF_ERROR(Iterate());
    Step("rank publish");
    NUTCHFS_ASSIGN_OR_RETURN(outcome.manifest, Publish());
    outcome.info = info_;
    return outcome;
  }

 private:
  void Step(std::string_view name) const {
    if (params_.before_step) params_.before_step(name);
  }
  std::string WorkFile(std::string_view name) const {
    return fmt::format("{}/rank-{}.edits", params_.work_dir, name);
  }
  std::string ScoresPath(uint32_t i) const { return WorkFile(fmt::format("scores-{}", i)); }
  Result<std::unique_ptr<LayeredTable>> Open(TableId t) const {
    return OpenLayeredTableOf(env_, params_.dir, old_, t, params_.manifest);
  }
  Result<std::unique_ptr<EditIterator>> OpenWork(const std::string& path,
                                                 std::string_view label) const {
    return OpenEditFile(env_, path, kRankReadBuffer, label);
  }
  uint64_t own_pages() const { return layout_.of(self_).pages; }

  // The pages and starting scores files, the groups (broadcast 0, sent once the layout is known),
  // the urls stream, and the layout.
  Status Graph() {
    Step("rank graph");
    NUTCHFS_ASSIGN_OR_RETURN(auto pages_table, Open(TableId::kPagesByMd5));
    NUTCHFS_ASSIGN_OR_RETURN(auto links_table, Open(TableId::kLinksByMd5));
    NUTCHFS_ASSIGN_OR_RETURN(
        auto pages_file, EditFileWriter::Create(env_, WorkFile("pages"), false, kRankPagesLabel));
    NUTCHFS_ASSIGN_OR_RETURN(auto scores_file,
                             EditFileWriter::Create(env_, ScoresPath(0), false, kRankScoresLabel));
    NUTCHFS_ASSIGN_OR_RETURN(EditSink * groups_sink, plumbing_.BroadcastSink(kGroupsBroadcast));
    RunWriter pages(*pages_file), scores(*scores_file), groups(*groups_sink);
    NUTCHFS_ASSIGN_OR_RETURN(
        SectionCounts counts,
        ReadSectionGraph(*pages_table, *links_table, self_, pages, scores, groups,
                         plumbing_.Sink(RankStream::kUrls), params_.progress));
    NUTCHFS_RETURN_IF_ERROR(pages.Finish());
    NUTCHFS_RETURN_IF_ERROR(scores.Finish());
    NUTCHFS_RETURN_IF_ERROR(groups.Finish());
    // Work files: a killed rank starts again from the tables, so they need no sync.
    NUTCHFS_RETURN_IF_ERROR(pages_file->Finish(/*sync=*/false));
    NUTCHFS_RETURN_IF_ERROR(scores_file->Finish(/*sync=*/false));
    const uint64_t block_ids =
        params_.block_ids != 0 ? params_.block_ids
                               : std::max<uint64_t>(1, params_.memory_budget / 2 / sizeof(Fixed));
    NUTCHFS_ASSIGN_OR_RETURN(
        std::vector<std::string> shares,
        plumbing_.Share(kLayoutStep,
                        RankLayout::Encode({counts.pages, counts.groups,
                                            std::min<uint64_t>(block_ids, UINT32_MAX)})));
    NUTCHFS_ASSIGN_OR_RETURN(layout_, RankLayout::Decode(shares));
    return Status::OK();
  }

  // The edges file: the groups sent, the urls stream joined with linksByURL into the edges stream,
  // which is written with each md5 replaced by its group.
  Status Edges() {
    Step("rank links");
    NUTCHFS_RETURN_IF_ERROR(plumbing_.SendBroadcast(kGroupsBroadcast));
    plumbing_.Split(RankStream::kEdges, layout_.EdgeSplits());
    {
      NUTCHFS_ASSIGN_OR_RETURN(auto links_table, Open(TableId::kLinksByUrl));
      NUTCHFS_ASSIGN_OR_RETURN(auto urls, plumbing_.Incoming(RankStream::kUrls));
      NUTCHFS_RETURN_IF_ERROR(
          JoinLinks(*urls, *links_table, layout_, plumbing_.Sink(RankStream::kEdges)));
    }
    plumbing_.Done(RankStream::kUrls);
    Step("rank edges");
    {
      NUTCHFS_ASSIGN_OR_RETURN(auto edges, plumbing_.Incoming(RankStream::kEdges));
      NUTCHFS_ASSIGN_OR_RETURN(auto file, EditFileWriter::Create(env_, WorkFile("edges"),
                                                                 /*sorted=*/true, kRankEdgesLabel));
      EdgeWriter out(*file);
      const OpenGroupsFn open_groups = [this](int w) {
        return plumbing_.OpenBroadcast(kGroupsBroadcast, w);
      };
      NUTCHFS_RETURN_IF_ERROR(WriteEdges(*edges, layout_, self_, open_groups, out));
      NUTCHFS_RETURN_IF_ERROR(out.Finish());
      NUTCHFS_RETURN_IF_ERROR(file->Finish(/*sync=*/false));
    }
    plumbing_.Done(RankStream::kEdges);
    return plumbing_.DropBroadcast(kGroupsBroadcast);
  }

  // Iteration i's pass A runs before the writers share the L1 change of iteration i-1,
  // so that one exchange of small values an iteration carries both that and the
  // dangling sums of iteration i: a session that stops discards one pass A.
  Status Iterate() {
    const RankOptions& o = params_.options;
    FixedSum last_l1 = 0;
    double seconds = 0;
    for (uint32_t i = 1;; ++i) {
      const auto start = Clock::now();
      const bool run = i <= o.iterations;
      Fixed dangling = 0;
      if (run) {
        Step(fmt::format("rank iteration {} sums", i));
        NUTCHFS_ASSIGN_OR_RETURN(dangling, PassA(i));
      }
      NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> shares,
                               plumbing_.Share(static_cast<int>(i), EncodeSums(last_l1, dangling)));
      FixedSum l1 = 0;
      Fixed total_dangling = 0;
      for (size_t w = 0; w < shares.size(); ++w) {
        if (shares[w].size() != 32) {
          return Status::Corruption(
              fmt::format("rank iteration {}: writer {} shared {} bytes", i, w, shares[w].size()));
        }
        FixedSum l1_w;
        Fixed d_w;
        std::memcpy(&l1_w, shares[w].data(), 16);
        std::memcpy(&d_w, shares[w].data() + 16, 16);
        l1 += l1_w;
        total_dangling += d_w;
      }
      if (i > 1) {
        seconds += std::chrono::duration<double>(Clock::now() - start).count();
        info_ = RankInfo{o, i - 1, ToDouble(l1)};
        if (params_.on_iteration) params_.on_iteration({i - 1, info_.l1, seconds});
        if (!run || Converged(l1, layout_.total_pages(), o.epsilon)) {
          return run ? plumbing_.DropBroadcast(static_cast<int>(i)) : Status::OK();
        }
      }
      NUTCHFS_RETURN_IF_ERROR(plumbing_.SendBroadcast(static_cast<int>(i)));
      Step(fmt::format("rank iteration {} scores", i));
      NUTCHFS_ASSIGN_OR_RETURN(last_l1,
                               PassB(i, DanglingSpread(total_dangling, layout_.total_pages())));
      NUTCHFS_RETURN_IF_ERROR(plumbing_.DropBroadcast(static_cast<int>(i)));
      NUTCHFS_RETURN_IF_ERROR(env_.RemoveFile(ScoresPath(i - 1)));
      seconds = std::chrono::duration<double>(Clock::now() - start).count();
    }
  }

  // The sums of this writer's groups, into every writer's file; returns the dangling sum.
  Result<Fixed> PassA(uint32_t i) {
    NUTCHFS_ASSIGN_OR_RETURN(auto pages_in, OpenWork(WorkFile("pages"), kRankPagesLabel));
    NUTCHFS_ASSIGN_OR_RETURN(auto scores_in, OpenWork(ScoresPath(i - 1), kRankScoresLabel));
    RunReader pages(*pages_in, WorkFile("pages")), scores(*scores_in, ScoresPath(i - 1));
    NUTCHFS_ASSIGN_OR_RETURN(EditSink * sink, plumbing_.BroadcastSink(static_cast<int>(i)));
    RunWriter out(*sink);
    GroupSummer summer;
    std::vector<Fixed> sums;
    auto write = [&]() -> Status {
      for (Fixed s : sums) NUTCHFS_RETURN_IF_ERROR(out.AddSum(s));
      sums.clear();
      return Status::OK();
    };
    while (true) {
      NUTCHFS_ASSIGN_OR_RETURN(std::span<const PageInfo> p, pages.Pages(kRunEntries));
      if (p.empty()) break;
      NUTCHFS_ASSIGN_OR_RETURN(std::span<const double> r, scores.Scores(p.size()));
      if (r.size() != p.size()) return Err(Mismatch(i, pages.position()));
      summer.Add(p, r, &sums);
      NUTCHFS_RETURN_IF_ERROR(write());
    }
    summer.Finish(&sums);
    NUTCHFS_RETURN_IF_ERROR(write());
    NUTCHFS_RETURN_IF_ERROR(scores.ExpectEnd());
    if (pages.position() != own_pages() || out.count() != layout_.of(self_).groups) {
      return Err(Mismatch(i, pages.position()));
    }
    NUTCHFS_RETURN_IF_ERROR(out.Finish());
    return summer.dangling();
  }

  // The new scores of this writer's pages, block by block; returns their L1 change.
  Result<FixedSum> PassB(uint32_t i, double spread) {
    NUTCHFS_ASSIGN_OR_RETURN(auto pages_in, OpenWork(WorkFile("pages"), kRankPagesLabel));
    NUTCHFS_ASSIGN_OR_RETURN(auto scores_in, OpenWork(ScoresPath(i - 1), kRankScoresLabel));
    NUTCHFS_ASSIGN_OR_RETURN(auto edges_in, OpenWork(WorkFile("edges"), kRankEdgesLabel));
    NUTCHFS_ASSIGN_OR_RETURN(auto next_file,
                             EditFileWriter::Create(env_, ScoresPath(i), false, kRankScoresLabel));
    RunReader pages(*pages_in, WorkFile("pages")), scores(*scores_in, ScoresPath(i - 1));
    EdgeReader edges(*edges_in, WorkFile("edges"));
    RunWriter out(*next_file);
    BlockScores block(params_.options.damping, spread);
    std::vector<double> next;
    const uint64_t ids = layout_.of(self_).block_ids;
    // The accumulators come out of the budget's pool: the sorters' mappings it kept (the
    // edges stream's) are reused, or dropped to make room, and are kept for the scores
    // stream after.
    BorrowedMemory accumulators =
        plumbing_.memory().Borrow(std::min(ids, own_pages()) * sizeof(Fixed));
    for (uint64_t b = 0; b < layout_.blocks(self_); ++b) {
      const uint64_t size = std::min(ids, own_pages() - b * ids);
      block.Start({reinterpret_cast<Fixed*>(accumulators.data()), size});
      SumsCursor sums(plumbing_, static_cast<int>(i), layout_);
      while (true) {
        NUTCHFS_ASSIGN_OR_RETURN(const EdgeRun* run, edges.Peek());
        if (run == nullptr || run->block != b) break;
        if (run->offsets.back() >= size) return Err(Mismatch(i, b * ids + run->offsets.back()));
        NUTCHFS_ASSIGN_OR_RETURN(Fixed sum, sums.At(run->group));
        block.AddGroup(sum, run->offsets);
        edges.Pop();
      }
      while (block.done() < size) {
        NUTCHFS_ASSIGN_OR_RETURN(std::span<const PageInfo> p, pages.Pages(size - block.done()));
        NUTCHFS_ASSIGN_OR_RETURN(std::span<const double> r, scores.Scores(p.size()));
        if (p.empty() || r.size() != p.size()) return Err(Mismatch(i, pages.position()));
        next.clear();
        block.Update(p, r, &next);
        for (double s : next) NUTCHFS_RETURN_IF_ERROR(out.AddScore(s));
      }
    }
    NUTCHFS_ASSIGN_OR_RETURN(const EdgeRun* rest, edges.Peek());
    if (rest != nullptr) return Err(Mismatch(i, rest->block * ids));
    NUTCHFS_RETURN_IF_ERROR(pages.ExpectEnd());
    NUTCHFS_RETURN_IF_ERROR(scores.ExpectEnd());
    NUTCHFS_RETURN_IF_ERROR(out.Finish());
    NUTCHFS_RETURN_IF_ERROR(next_file->Finish(/*sync=*/false));
    return block.l1();
  }

  Status Mismatch(uint32_t i, uint64_t id) const {
    return Status::Corruption(
        fmt::format("rank iteration {}: writer {}: the work files in {} disagree at id {}", i,
                    self_, params_.work_dir, id));
  }

  // The page tables with the final scores: pagesByMD5 in its order, and the (url, score)
  // pairs on the way sorted by url (at their url's writer) for pagesByURL.
  Result<Manifest> Publish() {
    DeferredSyncs syncs;
    NUTCHFS_ASSIGN_OR_RETURN(TableFile by_md5, WritePagesByMd5(syncs));
    NUTCHFS_ASSIGN_OR_RETURN(TableFile by_url, WritePagesByUrl(syncs));
    plumbing_.Done(RankStream::kScores);
    NUTCHFS_RETURN_IF_ERROR(syncs.Wait());
    Manifest next = old_;
    next.version = params_.new_version;
    next.SetBase(TableId::kPagesByMd5, {std::move(by_md5)});
    next.SetBase(TableId::kPagesByUrl, {std::move(by_url)});
    next.rank = info_;
    return next;
  }

  Result<std::unique_ptr<TableWriter>> NewTable(TableId t, uint64_t rows, DeferredSyncs& syncs) {
    return TableWriter::Create(env_, params_.dir, TableFileName(t, params_.new_version),
                               kTargetBlockSize, fmt::format("rank publish {}", TableName(t)), rows,
                               params_.progress, syncs);
  }

  Result<TableFile> WritePagesByMd5(DeferredSyncs& syncs) {
    const std::string path = ScoresPath(info_.done);
    NUTCHFS_ASSIGN_OR_RETURN(auto scores_in, OpenWork(path, kRankScoresLabel));
    RunReader scores(*scores_in, path);
    NUTCHFS_ASSIGN_OR_RETURN(auto table, Open(TableId::kPagesByMd5));
    NUTCHFS_ASSIGN_OR_RETURN(auto out, NewTable(TableId::kPagesByMd5, own_pages(), syncs));
    EditSink& by_url = plumbing_.Sink(RankStream::kScores);
    std::string value;
    std::span<const double> run;
    size_t at = 0;
    auto rows = table->NewIterator();
    for (rows->SeekToFirst(); rows->Valid(); rows->Next()) {
      if (at == run.size()) {
        NUTCHFS_ASSIGN_OR_RETURN(run, scores.Scores(kRunEntries));
        if (run.empty()) return Err(Mismatch(info_.done, scores.position()));
        at = 0;
      }
      NUTCHFS_ASSIGN_OR_RETURN(Page page, DecodePageByMd5(rows->key(), rows->value()));
      page.score = page.next_score = static_cast<float>(run[at++]);
      value.clear();
      EncodePageByMd5Value(page, &value);
      NUTCHFS_RETURN_IF_ERROR(out->Add(rows->key(), value));
      const std::string_view score(reinterpret_cast<const char*>(&page.score), sizeof(float));
      NUTCHFS_RETURN_IF_ERROR(by_url.Add(EditView{page.url, 0, 0, score}));
    }
    NUTCHFS_RETURN_IF_ERROR(rows->status());
    if (at != run.size()) return Err(Mismatch(info_.done, scores.position()));
    NUTCHFS_RETURN_IF_ERROR(scores.ExpectEnd());
    return out->Finish();
  }

  Result<TableFile> WritePagesByUrl(DeferredSyncs& syncs) {
    NUTCHFS_ASSIGN_OR_RETURN(auto scores, plumbing_.Incoming(RankStream::kScores));
    NUTCHFS_ASSIGN_OR_RETURN(auto table, Open(TableId::kPagesByUrl));
    NUTCHFS_ASSIGN_OR_RETURN(auto out, NewTable(TableId::kPagesByUrl, table->num_records(), syncs));
    std::string value;
    auto rows = table->NewIterator();
    for (rows->SeekToFirst(); rows->Valid(); rows->Next(), scores->Next()) {
      if (!scores->Valid() || scores->edit().key != rows->key() ||
          scores->edit().value.size() != sizeof(float)) {
        NUTCHFS_RETURN_IF_ERROR(scores->status());
        return Err(Status::Corruption(
            fmt::format("rank publish: no score, or another page's, for pagesByURL {}",
                        DescribeKey(TableId::kPagesByUrl, rows->key()))));
      }
      NUTCHFS_ASSIGN_OR_RETURN(Page page, DecodePageByUrl(rows->key(), rows->value()));
      std::memcpy(&page.score, scores->edit().value.data(), sizeof(float));
      page.next_score = page.score;
      value.clear();
      EncodePageByUrlValue(page, &value);
      NUTCHFS_RETURN_IF_ERROR(out->Add(rows->key(), value));
    }
    NUTCHFS_RETURN_IF_ERROR(rows->status());
    NUTCHFS_RETURN_IF_ERROR(scores->status());
    if (scores->Valid()) {
      return Err(Status::Corruption(
          fmt::format("rank publish: a score for pagesByURL {}, which has no page here",
                      DescribeKey(TableId::kPagesByUrl, scores->edit().key))));
    }
    return out->Finish();
  }

  nutchfs::Env& env_;
  const Manifest& old_;
  const RankParams& params_;
  RankPlumbing& plumbing_;
  const int self_;
  RankLayout layout_;
  RankInfo info_;
};

}  // namespace

Result<RankOutcome> RunRank(nutchfs::Env& env, const Manifest& old, const RankParams& params,
                            RankPlumbing& plumbing) {
  return Engine(env, old, params, plumbing).Run();
}

}  // namespace webdb
