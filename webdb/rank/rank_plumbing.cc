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

EditSink& LocalRankPlumbing::Sink(RankStream s) {
  std::unique_ptr<Sorter>& sorter = sorters_[static_cast<int>(s)];
  if (sorter == nullptr) {
    sorter = Sorter::Create(env_, work_dir_, memory_, std::string("rank-") + RankStreamName(s),
                            /*background=*/true);
  }
  return *sorter;
}

Result<std::unique_ptr<EditIterator>> LocalRankPlumbing::Incoming(RankStream s) {
  std::unique_ptr<Sorter>& sorter = sorters_[static_cast<int>(s)];
  if (sorter == nullptr) return NewEmptyEditIterator();
  return sorter->Finish();
}

std::string LocalRankPlumbing::SumsPath(int iteration) const {
  return fmt::format("{}/rank-sums-{}.edits", work_dir_, iteration);
}

Result<std::vector<EditSink*>> LocalRankPlumbing::SumSinks(int iteration) {
  NUTCHFS_ASSIGN_OR_RETURN(sums_, EditFileWriter::Create(env_, SumsPath(iteration),
                                                         /*sorted=*/false, kRankSumsLabel));
  return std::vector<EditSink*>{sums_.get()};
}

Status LocalRankPlumbing::SendSums(int iteration) {
  // A work file: a killed rank starts again from the tables.
  Status s = sums_->Finish(/*sync=*/false);
  sums_.reset();
  return s;
}

Result<std::unique_ptr<EditIterator>> LocalRankPlumbing::OpenSums(int iteration, int from) {
  return OpenEditFile(env_, SumsPath(iteration), kRankReadBuffer, kRankSumsLabel);
}

Status LocalRankPlumbing::DropSums(int iteration) {
  Status s = env_.RemoveFile(SumsPath(iteration));
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace webdb
