#include "distwriter/dist_plumbing.h"

#include <algorithm>

#include "webdb/db/layer_plan.h"
#include "webdb/table/merging_iterator.h"

namespace distwriter {
namespace {

constexpr size_t kLiveSorters = 3;  // sorters holding edits at once, for the read buffers

}  // namespace

// The sorters keep up to three partitions a stage (the sections before this writer's,
// its own, those after), filled by two producers: the lanes of the call log for stages
// 1 and 3 (distwriter/round.cc), the one worker of a stage for the stages after it.
DistPlumbing::DistPlumbing(nutchfs::Env& local, std::string work_dir, size_t memory_budget,
                           Exchange& exchange, int self, int k,
                           const std::vector<std::string>& url_breakpoints)
    : local_(local),
      work_dir_(std::move(work_dir)),
      exchange_(exchange),
      self_(self),
      k_(k),
      read_buffer_(std::clamp<size_t>(memory_budget / kLiveSorters / static_cast<size_t>(k),
                                      64 << 10, webdb::kEditReadBufferSize)),
      sorters_(local, work_dir_, memory_budget, /*sort_thread=*/true, /*max_partitions=*/3,
               /*producers=*/2) {
  const Partition known(k, url_breakpoints);
  for (int stage = 1; stage <= webdb::kNumStages; ++stage) KeepOwnApart(stage, known);
}

void DistPlumbing::set_partition(Partition p) {
  // Stages whose first edit is still to come (stage 4's, when the breakpoints were
  // chosen in this round's stage 0).
  for (int stage = 1; stage <= webdb::kNumStages; ++stage) {
    if (!own_partition_[stage - 1] && sorters_.count(stage) == 0) KeepOwnApart(stage, p);
  }
  partition_.emplace(std::move(p));
}

// Keeps stage's edits apart at the bounds of this writer's section of its table, if p
// has them (not with k = 1, nor for a url table before the breakpoints are chosen).
// REQUIRES: no edit added for stage yet.
void DistPlumbing::KeepOwnApart(int stage, const Partition& p) {
  const std::vector<std::string>& splits = p.Splits(webdb::Stage(stage).table);
  if (splits.empty()) return;
  std::vector<std::string> bounds;
  if (self_ > 0) bounds.push_back(splits[self_ - 1]);
  if (self_ < k_ - 1) bounds.push_back(splits[self_]);
  own_partition_[stage - 1] = self_ > 0 ? 1 : 0;
  sorters_.Split(stage, std::move(bounds));
}

Status DistPlumbing::EndStage(int stage) {
  NUTCHFS_RETURN_IF_ERROR(exchange_.CheckStop());
  // Earlier stages are done, except those a later stage reads again (stage 3's).
  for (int s = 1; s < stage; ++s) {
    if (webdb::ReadAgain(s) || own_sections_[s - 1].empty()) continue;
    Status removed = local_.RemoveFile(own_sections_[s - 1]);
    if (!removed.ok() && !removed.IsNotFound()) return removed;  // gone if corrupt
    own_sections_[s - 1].clear();
  }
  return sorters_.EndStage(stage);
}

Result<std::unique_ptr<webdb::EditIterator>> DistPlumbing::Incoming(int stage, size_t partition) {
  // A lone writer owns every section: its sorted edits go to the stage unwritten.
  if (k_ == 1) return sorters_.Finish(stage, partition);
  const std::optional<size_t> own = own_partition_[stage - 1];
  if (!own) {
    NUTCHFS_ASSIGN_OR_RETURN(auto sorted, sorters_.Finish(stage, 0));
    NUTCHFS_RETURN_IF_ERROR(SendSections(stage, *sorted, 0, k_));
  } else {
    if (self_ > 0) {
      NUTCHFS_ASSIGN_OR_RETURN(auto before, sorters_.Finish(stage, 0));
      NUTCHFS_RETURN_IF_ERROR(SendSections(stage, *before, 0, self_));
    }
    if (self_ < k_ - 1) {
      NUTCHFS_ASSIGN_OR_RETURN(auto after, sorters_.Finish(stage, *own + 1));
      NUTCHFS_RETURN_IF_ERROR(SendSections(stage, *after, self_ + 1, k_));
    }
  }
  return ReceiveAll(stage, /*again=*/false);
}

// Stage 3's edits are still there: the peers' files in this writer's group until the
// round is cleaned up, its own section in its sorter.
Result<std::unique_ptr<webdb::EditIterator>> DistPlumbing::IncomingAgain(int stage,
                                                                         size_t partition) {
  if (k_ == 1) return sorters_.Again(stage, partition);
  return ReceiveAll(stage, /*again=*/true);
}

std::optional<uint64_t> DistPlumbing::Count(int stage) const {
  if (k_ == 1) return sorters_.count(stage);
  return counts_[stage - 1];
}

// Writes the sorted stream as the consecutive files of sections [first, last) and sends
// each one but this writer's own, which ReceiveAll reads where it was written.
Status DistPlumbing::SendSections(int stage, webdb::EditIterator& sorted, int first, int last) {
  const webdb::TableId table = webdb::Stage(stage).table;
  for (int to = first; to < last; ++to) {
    const std::string path =
        work_dir_ + "/out-s" + std::to_string(stage) + "-to" + std::to_string(to) + ".edits";
    NUTCHFS_ASSIGN_OR_RETURN(auto out, exchange_.Create(path, stage, to, true));
    for (; sorted.Valid(); sorted.Next()) {
      const int section = partition_->SectionOf(table, sorted.edit().key);
      if (section < to) return Status::Corruption("edit stream out of section order");
      if (section > to) break;
      NUTCHFS_RETURN_IF_ERROR(out->Add(sorted.edit()));
    }
    NUTCHFS_RETURN_IF_ERROR(sorted.status());
    // This writer's own section is a working file; the others are moved as they are.
    NUTCHFS_RETURN_IF_ERROR(out->Finish(/*sync=*/to != self_));
    if (to == self_) {
      own_sections_[stage - 1] = path;
      continue;
    }
    NUTCHFS_RETURN_IF_ERROR(exchange_.Send(stage, to, path));
  }
  if (sorted.Valid()) return Status::Corruption("edit stream beyond its sections");
  return Status::OK();
}

// The k sections' edits merged: the peers' files, and this writer's own section from
// its sorter or from the file it was written to; counted the first time.
Result<std::unique_ptr<webdb::EditIterator>> DistPlumbing::ReceiveAll(int stage, bool again) {
  std::vector<std::unique_ptr<webdb::EditIterator>> inputs;
  const std::optional<size_t> own = own_partition_[stage - 1];
  uint64_t total = 0;
  for (int from = 0; from < k_; ++from) {
    uint64_t count = 0;
    if (from == self_ && own) count = sorters_.count(stage, *own);
    Result<std::unique_ptr<webdb::EditIterator>> in =
        from != self_ ? exchange_.Open(stage, from, read_buffer_, &count)
        : !own        ? exchange_.OpenFile(own_sections_[stage - 1], stage, self_, self_,
                                           read_buffer_, &count)
        : again       ? sorters_.Again(stage, *own)
                      : sorters_.Finish(stage, *own);
    if (!in) return Err(in.error());
    inputs.push_back(std::move(*in));
    total = webdb::AddCounts(total, count);
  }
  if (!again) counts_[stage - 1] = total;
  return webdb::NewMergingEditIterator(std::move(inputs));
}

}  // namespace distwriter
