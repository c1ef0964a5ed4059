#include "webdb/rank/rank_plumbing.h"

#include <fmt/format.h>

#include "webdb/rank/rank_files.h"
#include "webdb/sort/edit_file.h"

namespace webdb {

const char* RankStreamName(RankStream s) {
  switch (s) {
    case RankStream::kUrls: return "urls";
    case RankStream::kEdges: return "edges";
    case RankStream::kScores: return "scores";
  }
  return "?";
}

LocalRankPlumbing::LocalRankPlumbing(nutchfs::Env& env, std::string work_dir, size_t memory_budget)
    : env_(env), work_dir_(std::move(work_dir)), memory_(memory_budget) {}

std::unique_ptr<Sorter> LocalRankPlumbing::NewSorter(RankStream s) {
  return Sorter::Create(env_, work_dir_, memory_, std::string("rank-") + RankStreamName(s),
                        /*background=*/true);
}

EditSink& LocalRankPlumbing::Sink(RankStream s) {
  if (s == RankStream::kEdges) {
    if (edges_ == nullptr) {
      edges_ = std::make_unique<FixedKeySorter>(memory_, kEdgeStreamKeySize,
                                                [this] { return NewSorter(RankStream::kEdges); });
    }
    return *edges_;
  }
  std::unique_ptr<Sorter>& sorter = sorters_[static_cast<int>(s)];
  if (sorter == nullptr) sorter = NewSorter(s);
  return *sorter;
}

Result<std::unique_ptr<EditIterator>> LocalRankPlumbing::Incoming(RankStream s) {
  if (s == RankStream::kEdges) {
    if (edges_ == nullptr) return NewEmptyEditIterator();
    return edges_->Finish();
  }
  std::unique_ptr<Sorter>& sorter = sorters_[static_cast<int>(s)];
  if (sorter == nullptr) return NewEmptyEditIterator();
  return sorter->Finish();
}

void LocalRankPlumbing::Done(RankStream s) {
  if (s == RankStream::kEdges) edges_.reset();
  sorters_[static_cast<int>(s)].reset();
}

std::string LocalRankPlumbing::BroadcastPath(int n) const {
  return n == 0 ? fmt::format("{}/rank-groups.edits", work_dir_)
                : fmt::format("{}/rank-sums-{}.edits", work_dir_, n);
}

Result<EditSink*> LocalRankPlumbing::BroadcastSink(int n) {
  NUTCHFS_ASSIGN_OR_RETURN(broadcast_,
                           EditFileWriter::Create(env_, BroadcastPath(n), /*sorted=*/false,
                                                  n == 0 ? kRankGroupsLabel : kRankSumsLabel));
  return broadcast_.get();
}

Status LocalRankPlumbing::SendBroadcast(int n) {
  // A work file: a killed rank starts again from the tables.
  Status s = broadcast_->Finish(/*sync=*/false);
  broadcast_.reset();
  return s;
}

Result<std::unique_ptr<EditIterator>> LocalRankPlumbing::OpenBroadcast(int n, int from) {
  return OpenEditFile(env_, BroadcastPath(n), kRankReadBuffer,
                      n == 0 ? kRankGroupsLabel : kRankSumsLabel);
}

Status LocalRankPlumbing::DropBroadcast(int n) {
  Status s = env_.RemoveFile(BroadcastPath(n));
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace webdb
