#include "distwriter/dist_plumbing.h"

#include <algorithm>

#include "webdb/merging_iterator.h"

namespace distwriter {
namespace {

constexpr size_t kLiveSorters = 3;  // sorters holding edits at once, for the read buffers
constexpr webdb::TableId kStageTable[webdb::kNumStages] = {
    webdb::TableId::kPagesByUrl, webdb::TableId::kPagesByMd5, webdb::TableId::kLinksByMd5,
    webdb::TableId::kLinksByUrl, webdb::TableId::kLinksByMd5};

}  // namespace

DistPlumbing::DistPlumbing(nutchfs::Env& local, std::string work_dir, size_t memory_budget,
                           Exchange& exchange, int self, int k)
    : local_(local),
      work_dir_(std::move(work_dir)),
      exchange_(exchange),
      self_(self),
      k_(k),
      read_buffer_(std::clamp<size_t>(memory_budget / kLiveSorters / static_cast<size_t>(k),
                                      64 << 10, webdb::kEditReadBufferSize)),
      sorters_(local, work_dir_, memory_budget, /*sort_thread=*/true) {}

Status DistPlumbing::EndStage(int stage) {
  // Earlier stages are done, except stage 3, whose edits stage 5 reads again.
  for (int s = 1; s < stage; ++s) {
    if (s == 3 || own_sections_[s - 1].empty()) continue;
    Status removed = local_.RemoveFile(own_sections_[s - 1]);
    if (!removed.ok() && !removed.IsNotFound()) return removed;  // gone if corrupt
    own_sections_[s - 1].clear();
  }
  return sorters_.EndStage(stage);
}

Result<std::unique_ptr<webdb::EditIterator>> DistPlumbing::Incoming(int stage, size_t partition) {
  NUTCHFS_ASSIGN_OR_RETURN(auto sorted, sorters_.Finish(stage, partition));
  // A lone writer owns every section: its sorted edits go to the stage unwritten.
  if (k_ == 1) return sorted;
  NUTCHFS_RETURN_IF_ERROR(SendSections(stage, *sorted));
  sorted.reset();
  return ReceiveAll(stage);
}

// The files of stage 3 are still there: this writer's own section in the work
// directory, the others' in its group until the round is cleaned up.
Result<std::unique_ptr<webdb::EditIterator>> DistPlumbing::IncomingStage3Again(
    size_t partition) {
  if (k_ == 1) return sorters_.Stage3Again(partition);
  return ReceiveAll(3);
}

// Writes the sorted stream as k consecutive section files and sends each one but this
// writer's own, which ReceiveAll reads where it was written.
Status DistPlumbing::SendSections(int stage, webdb::EditIterator& sorted) {
  const webdb::TableId table = kStageTable[stage - 1];
  for (int to = 0; to < k_; ++to) {
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
  return Status::OK();
}

Result<std::unique_ptr<webdb::EditIterator>> DistPlumbing::ReceiveAll(int stage) {
  std::vector<std::unique_ptr<webdb::EditIterator>> inputs;
  for (int from = 0; from < k_; ++from) {
    auto file = from == self_ ? exchange_.OpenFile(own_sections_[stage - 1], stage, self_, self_,
                                                   read_buffer_)
                              : exchange_.Open(stage, from, read_buffer_);
    if (!file) return Err(file.error());
    inputs.push_back(std::move(*file));
  }
  return webdb::NewMergingEditIterator(std::move(inputs));
}

}  // namespace distwriter
