// RankPlumbing: where a rank's data goes between the writers that compute it
// (docs/DESIGN.md, "Link analysis"), as StagePlumbing (webdb/db/update.h) is for an update.
// The single-machine rank (LocalRankPlumbing, here) is one writer: its streams are sorted
// locally and its sums files stay where they are written. The distributed writer's
// (distwriter/dist_rank.h) sends every stream and file to the writers that need it
// through NutchFS, as a round's stages do.
//
// A rank moves three kinds of data:
//   - keyed streams (RankStream): edits routed by key to the writer that owns the key's range and
//     read back there sorted by (key, order), from every sender;
//   - broadcasts: one file from every writer to every writer, read back in writer order (the global
//     group order): broadcast 0 is the md5s of the writers' groups, broadcast i >= 1 the group sums
//     of iteration i;
//   - small values every writer contributes and every writer needs (counts, the dangling sums, the
//     L1 changes): Share.
//
// Each plumbing is used by the one thread running the rank.
#ifndef WEBDB_RANK_RANK_PLUMBING_H_
#define WEBDB_RANK_RANK_PLUMBING_H_

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/sort/edit_file.h"
#include "webdb/sort/fixed_key_sorter.h"
#include "webdb/sort/sort_memory.h"
#include "webdb/sort/sorter.h"
#include "webdb/table/iterator.h"

namespace webdb {

enum class RankStream {
  kUrls = 0,    // pages by url, to the url's writer
  kEdges = 1,   // edges by (block, group), to the target's writer
  kScores = 2,  // final scores by url, to the url's writer
};
constexpr int kNumRankStreams = 3;
const char* RankStreamName(RankStream s);  // "urls", ...

class RankPlumbing {
 public:
  virtual ~RankPlumbing() = default;
  virtual int writers() const = 0;
  virtual int self() const = 0;

  // Every writer's value for `step` (a number the caller gives each exchange of small
  // values, increasing), in writer order; this writer's is mine.
  virtual Result<std::vector<std::string>> Share(int step, std::string mine) = 0;

  // Routes stream s by key from now on: writer w owns the keys k with splits[w-1] <= k <
  // splits[w] (k-1 increasing keys). The url streams are routed by the db's url
  // breakpoints without being told. REQUIRES: no edit added to s yet.
  virtual void Split(RankStream s, std::vector<std::string> splits) {}
  virtual EditSink& Sink(RankStream s) = 0;
  // The edits of s that this writer owns, from every writer, sorted by (key, order), ties
  // by sender. Once a stream, after every edit of it was added.
  virtual Result<std::unique_ptr<EditIterator>> Incoming(RankStream s) = 0;
  // Frees what stream s holds. REQUIRES: its Incoming iterator is gone.
  virtual void Done(RankStream s) = 0;

  // Where this writer writes its part of broadcast n (0: its groups' md5s; i >= 1: its group sums
  // of iteration i): every edit added goes to every writer. Once a broadcast.
  virtual Result<EditSink*> BroadcastSink(int n) = 0;
  // Finishes broadcast n's files and sends each to its writer.
  virtual Status SendBroadcast(int n) = 0;
  // Writer `from`'s part of broadcast n, as received here: may be opened again and again.
  virtual Result<std::unique_ptr<EditIterator>> OpenBroadcast(int n, int from) = 0;
  // Frees broadcast n (sent and received). REQUIRES: none of its files is open.
  virtual Status DropBroadcast(int n) = 0;

  // The memory budget's pool, which the streams' sorters share: the rank's other large
  // buffers (the accumulators of a block) borrow from it too.
  virtual SortMemory& memory() = 0;
};

// The single-machine rank: one writer, sorting its streams in work_dir within memory_budget (one
// pool for all of them), its broadcasts in work_dir. The edges stream, whose keys are all of one
// size (SetEdgeStreamKey), is sorted as fixed-width entries (FixedKeySorter) while it fits.
class LocalRankPlumbing final : public RankPlumbing {
 public:
  LocalRankPlumbing(nutchfs::Env& env, std::string work_dir, size_t memory_budget);

  int writers() const override { return 1; }
  int self() const override { return 0; }
  Result<std::vector<std::string>> Share(int step, std::string mine) override {
    return std::vector<std::string>{std::move(mine)};
  }
  EditSink& Sink(RankStream s) override;
  Result<std::unique_ptr<EditIterator>> Incoming(RankStream s) override;
  void Done(RankStream s) override;
  Result<EditSink*> BroadcastSink(int n) override;
  Status SendBroadcast(int n) override;
  Result<std::unique_ptr<EditIterator>> OpenBroadcast(int n, int from) override;
  Status DropBroadcast(int n) override;
  SortMemory& memory() override { return memory_; }

 private:
  std::string BroadcastPath(int n) const;

  nutchfs::Env& env_;
  const std::string work_dir_;
  SortMemory memory_;
  std::unique_ptr<Sorter> NewSorter(RankStream s);

  std::array<std::unique_ptr<Sorter>, kNumRankStreams> sorters_;  // but the edges stream's
  std::unique_ptr<FixedKeySorter> edges_;
  std::unique_ptr<EditFileWriter> broadcast_;
};

}  // namespace webdb

#endif  // WEBDB_RANK_RANK_PLUMBING_H_
