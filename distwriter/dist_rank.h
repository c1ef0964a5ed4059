// A rank round's exchanges (docs/DISTRIBUTED.md, "Rank rounds"): DistRankPlumbing is the
// distributed writer's webdb::RankPlumbing. Each of its exchanges is a stage of the round (files
// `rounds/<N>-<token>/s<stage>/from-<j>.edits`, k^2 of them, waited for by arrival like a round's
// stage files, refused if they are not what their names say):
//   - keyed streams: sorted locally, cut at the writers' key ranges into k files, each sent to its
//     writer; the k files a writer receives are merged (ties by sender);
//   - broadcasts (0: the groups' md5s; i >= 1: the group sums of iteration i): the same records in
//     one file to each writer, read back in writer order;
//   - small values (Share): one file of one record to each writer.
// This writer's own part of a stream or of a broadcast is written to its work directory and read
// there, never sent. With k = 1 nothing is exchanged. Not thread-safe.
#ifndef DISTWRITER_DIST_RANK_H_
#define DISTWRITER_DIST_RANK_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "distwriter/exchange.h"
#include "distwriter/partition.h"
#include "webdb/db/manifest.h"
#include "webdb/rank/rank_plumbing.h"

namespace distwriter {

// The stages a rank round numbers its exchanges with, after the commit's: the three streams, then
// for each share step s (webdb/rank/rank_engine.cc) and each iteration i its own (broadcast 0, the
// groups, comes between share steps 0 and 1).
int RankStreamStage(webdb::RankStream s);  // 7, 8, 9
int RankShareStage(int step);              // 10 + 2 * step
int RankBroadcastStage(int n);             // 11 + 2 * n
// The name of a rank round's stage in messages and reports ("urls", "share 3", "groups", "sums 2").
std::string RankStageName(int stage);

// The input digest of a rank round for writer `writer` of k: what a restarted writer is
// recognized by, as a round's calls are (docs/DISTRIBUTED.md, "A round").
std::string RankDigest(const webdb::RankOptions& options, int k, int writer);

class DistRankPlumbing final : public webdb::RankPlumbing {
 public:
  // partition: the round's (its url breakpoints route the url streams).
  DistRankPlumbing(nutchfs::Env& local, std::string work_dir, size_t memory_budget,
                   Exchange& exchange, int self, Partition partition);

  int writers() const override { return partition_.k(); }
  int self() const override { return self_; }
  Result<std::vector<std::string>> Share(int step, std::string mine) override;
  void Split(webdb::RankStream s, std::vector<std::string> splits) override;
  webdb::EditSink& Sink(webdb::RankStream s) override { return sorters_.Sink(s); }
  Result<std::unique_ptr<webdb::EditIterator>> Incoming(webdb::RankStream s) override;
  void Done(webdb::RankStream s) override;
  Result<webdb::EditSink*> BroadcastSink(int n) override;
  Status SendBroadcast(int n) override;
  Result<std::unique_ptr<webdb::EditIterator>> OpenBroadcast(int n, int from) override;
  Status DropBroadcast(int n) override;
  webdb::SortMemory& memory() override { return sorters_.memory(); }

 private:
  std::string OutPath(int stage, int to) const;
  Status SendParts(int stage, webdb::EditIterator& sorted, const std::vector<std::string>& splits);

  nutchfs::Env& local_;
  const std::string work_dir_;
  Exchange& exchange_;
  const int self_;
  const Partition partition_;
  webdb::LocalRankPlumbing sorters_;  // the streams' local sorts
  std::array<std::vector<std::string>, webdb::kNumRankStreams> splits_;
  // The files of the broadcast being written, one to each writer; every edit to all.
  class Broadcast final : public webdb::EditSink {
   public:
    Status Add(const webdb::EditView& e) override;
    std::vector<std::unique_ptr<webdb::EditFileWriter>> files;
  };
  Broadcast broadcast_;
};

}  // namespace distwriter

#endif  // DISTWRITER_DIST_RANK_H_
