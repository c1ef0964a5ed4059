#include "distwriter/dist_rank.h"

#include <fmt/format.h>

#include "distwriter/input_digest.h"
#include "webdb/rank/rank_files.h"
#include "webdb/table/merging_iterator.h"

namespace distwriter {

int RankStreamStage(webdb::RankStream s) { return kCommitStage + 1 + static_cast<int>(s); }
int RankShareStage(int step) { return kCommitStage + 4 + 2 * step; }
int RankBroadcastStage(int n) { return kCommitStage + 5 + 2 * n; }

std::string RankStageName(int stage) {
  const int n = stage - RankShareStage(0);
  if (n < 0) return webdb::RankStreamName(static_cast<webdb::RankStream>(stage - kCommitStage - 1));
  if (n == 1) return "groups";
  return fmt::format("{} {}", n % 2 == 0 ? "share" : "sums", n / 2);
}

std::string RankDigest(const webdb::RankOptions& options, int k, int writer) {
  InputDigest digest(k, writer);
  const std::string what =
      fmt::format("rank {} {} {}", options.iterations, options.epsilon, options.damping);
  digest.Add(webdb::EditView{what, 0, 0, {}});
  return digest.Hex();
}

DistRankPlumbing::DistRankPlumbing(nutchfs::Env& local, std::string work_dir, size_t memory_budget,
                                   Exchange& exchange, int self, Partition partition)
    : local_(local),
      work_dir_(std::move(work_dir)),
      exchange_(exchange),
      self_(self),
      partition_(std::move(partition)),
      sorters_(local, work_dir_, memory_budget) {
  // The pages go to the writers of their urls, whose sections of linksByURL they are joined with
  // (webdb/rank/rank_graph.h), and so do the scores.
  splits_[static_cast<int>(webdb::RankStream::kUrls)] =
      partition_.Splits(webdb::TableId::kPagesByUrl);
  splits_[static_cast<int>(webdb::RankStream::kScores)] =
      partition_.Splits(webdb::TableId::kPagesByUrl);
}

std::string DistRankPlumbing::OutPath(int stage, int to) const {
  return fmt::format("{}/rank-s{}-to{}.edits", work_dir_, stage, to);
}

Result<std::vector<std::string>> DistRankPlumbing::Share(int step, std::string mine) {
  const int stage = RankShareStage(step);
  std::vector<std::string> values(writers());
  for (int to = 0; to < writers(); ++to) {
    if (to == self_) continue;
    const std::string path = OutPath(stage, to);
    {
      NUTCHFS_ASSIGN_OR_RETURN(auto out, exchange_.Create(path, stage, to, /*sorted=*/false));
      NUTCHFS_RETURN_IF_ERROR(out->Add(webdb::EditView{{}, 0, 0, mine}));
      NUTCHFS_RETURN_IF_ERROR(out->Finish(/*sync=*/false));
    }
    NUTCHFS_RETURN_IF_ERROR(exchange_.Send(stage, to, path));
  }
  for (int from = 0; from < writers(); ++from) {
    if (from == self_) {
      values[from] = mine;
      continue;
    }
    NUTCHFS_ASSIGN_OR_RETURN(auto in, exchange_.Open(stage, from));
    if (!in->Valid()) {
      NUTCHFS_RETURN_IF_ERROR(in->status());
      return Err(
          Status::Corruption(fmt::format("writer {}: round {} rank {}: the file from "
                                         "writer {} is empty",
                                         self_, exchange_.round(), RankStageName(stage), from)));
    }
    values[from].assign(in->edit().value);
  }
  return values;
}

void DistRankPlumbing::Split(webdb::RankStream s, std::vector<std::string> splits) {
  splits_[static_cast<int>(s)] = std::move(splits);
}

// Cuts the sorted stream at the splits into one file for each writer: sends the others',
// keeps its own where it was written.
Status DistRankPlumbing::SendParts(int stage, webdb::EditIterator& sorted,
                                   const std::vector<std::string>& splits) {
  for (int to = 0; to < writers(); ++to) {
    const std::string path = OutPath(stage, to);
    NUTCHFS_ASSIGN_OR_RETURN(auto out, exchange_.Create(path, stage, to, /*sorted=*/true));
    for (; sorted.Valid(); sorted.Next()) {
      if (to < writers() - 1 && sorted.edit().key >= splits[to]) break;
      NUTCHFS_RETURN_IF_ERROR(out->Add(sorted.edit()));
    }
    NUTCHFS_RETURN_IF_ERROR(sorted.status());
    // This writer's own part is a working file; the others are moved as they are.
    NUTCHFS_RETURN_IF_ERROR(out->Finish(/*sync=*/false));
    if (to != self_) NUTCHFS_RETURN_IF_ERROR(exchange_.Send(stage, to, path));
  }
  return Status::OK();
}

Result<std::unique_ptr<webdb::EditIterator>> DistRankPlumbing::Incoming(webdb::RankStream s) {
  if (writers() == 1) return sorters_.Incoming(s);
  const int stage = RankStreamStage(s);
  const std::vector<std::string>& splits = splits_[static_cast<int>(s)];
  if (splits.size() != static_cast<size_t>(writers() - 1)) {
    return Err(Status::InvalidArgument(fmt::format(
        "rank {}: {} split keys for {} writers", RankStageName(stage), splits.size(), writers())));
  }
  {
    NUTCHFS_ASSIGN_OR_RETURN(auto sorted, sorters_.Incoming(s));
    NUTCHFS_RETURN_IF_ERROR(SendParts(stage, *sorted, splits));
  }
  sorters_.Done(s);
  std::vector<std::unique_ptr<webdb::EditIterator>> inputs;
  for (int from = 0; from < writers(); ++from) {
    auto in = from == self_ ? exchange_.OpenFile(OutPath(stage, self_), stage, self_, self_,
                                                 webdb::kRankReadBuffer)
                            : exchange_.Open(stage, from, webdb::kRankReadBuffer);
    if (!in) return Err(in.error());
    inputs.push_back(std::move(*in));
  }
  return webdb::NewMergingEditIterator(std::move(inputs));
}

// The files received stay in this writer's group until the round's clean-up: restarted,
// it reads them again, since its peers may have gone on to the commit meanwhile.
void DistRankPlumbing::Done(webdb::RankStream s) {
  sorters_.Done(s);
  if (writers() == 1) return;
  Status ignored = local_.RemoveFile(OutPath(RankStreamStage(s), self_));
  (void)ignored;  // the work directory goes with the round too
}

Status DistRankPlumbing::Broadcast::Add(const webdb::EditView& e) {
  for (auto& file : files) NUTCHFS_RETURN_IF_ERROR(file->Add(e));
  return Status::OK();
}

Result<webdb::EditSink*> DistRankPlumbing::BroadcastSink(int n) {
  const int stage = RankBroadcastStage(n);
  broadcast_.files.clear();
  for (int to = 0; to < writers(); ++to) {
    NUTCHFS_ASSIGN_OR_RETURN(auto out, exchange_.Create(OutPath(stage, to), stage, to, false));
    broadcast_.files.push_back(std::move(out));
  }
  return &broadcast_;
}

Status DistRankPlumbing::SendBroadcast(int n) {
  const int stage = RankBroadcastStage(n);
  for (int to = 0; to < writers(); ++to) {
    NUTCHFS_RETURN_IF_ERROR(broadcast_.files[to]->Finish(/*sync=*/false));
    if (to != self_) NUTCHFS_RETURN_IF_ERROR(exchange_.Send(stage, to, OutPath(stage, to)));
  }
  broadcast_.files.clear();
  return Status::OK();
}

Result<std::unique_ptr<webdb::EditIterator>> DistRankPlumbing::OpenBroadcast(int n, int from) {
  const int stage = RankBroadcastStage(n);
  if (from == self_) {
    return exchange_.OpenFile(OutPath(stage, self_), stage, self_, self_, webdb::kRankReadBuffer);
  }
  return exchange_.Open(stage, from, webdb::kRankReadBuffer);
}

// This writer's own part (and, when the session stops before sending them, the others' unsent);
// those received stay until the round's clean-up (Done).
Status DistRankPlumbing::DropBroadcast(int n) {
  const int stage = RankBroadcastStage(n);
  broadcast_.files.clear();
  for (int w = 0; w < writers(); ++w) {
    Status s = local_.RemoveFile(OutPath(stage, w));
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  return Status::OK();
}

}  // namespace distwriter
