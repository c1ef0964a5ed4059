#include "webdb/sort/sorter.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <span>
#include <utility>

#include "webdb/sort/edit_file.h"
#include "webdb/sort/sort_buffer.h"
#include "webdb/sort/sort_memory.h"
#include "webdb/table/merging_iterator.h"

namespace webdb {
namespace {

using nutchfs::Err;

// With a sorting thread, the memory buffer is cut into chunks of this share of the
// budget (and at least kMinChunkBytes), each sorted while the next fills.
constexpr size_t kChunksPerBudget = 8;
constexpr size_t kMinChunkBytes = 16 << 10;
// A sorter spills no run smaller than this share of the budget (Add).
constexpr size_t kMinRunsPerBudget = 256;

// A run being merged reads through a buffer of at least two frames.
constexpr size_t kMinReadBuffer = 2 * kEditFrameSize;
constexpr size_t kMaxReadBuffer = 4 << 20;
// Keeps a record (and its edit file encoding) well below the 4 GiB frame limit.
constexpr size_t kMaxEditBytes = size_t{1} << 31;

// The runs being merged read through at most this share of the budget: the sorters
// filling meanwhile (the next stages' edits) keep the rest for runs as large as can be.
constexpr size_t kReadShareDivisor = 4;

// As many runs as leave each a kMinReadBuffer of the read share, between 2 and kMaxFanIn.
size_t FanInFor(size_t read_share) {
  return std::clamp<size_t>(read_share / kMinReadBuffer, 2, Sorter::kMaxFanIn);
}

class SortBufferIterator final : public EditIterator {
 public:
  explicit SortBufferIterator(const SortBuffer& buffer) : buffer_(buffer) { Load(); }
  bool Valid() const override { return i_ < buffer_.size(); }
  void Next() override {
    ++i_;
    Load();
  }
  const EditView& edit() const override { return edit_; }
  Status status() const override { return Status::OK(); }
  bool views_stable() const override { return true; }  // the buffer no longer changes

 private:
  // A chunk may still be sorting on its thread: its sorted front is read as it grows.
  void Load() {
    if (i_ < buffer_.size()) {
      buffer_.WaitSorted(i_);
      edit_ = buffer_.Get(i_);
    }
  }

  const SortBuffer& buffer_;
  size_t i_ = 0;
  EditView edit_;
};

}  // namespace

std::unique_ptr<Sorter> Sorter::Create(nutchfs::Env& env, std::string tmp_dir, SortMemory& memory,
                                       std::string name, bool background,
                                       size_t read_sharers) {
  return std::unique_ptr<Sorter>(new Sorter(env, std::move(tmp_dir), memory, nullptr,
                                            std::move(name), background, read_sharers));
}

std::unique_ptr<Sorter> Sorter::Create(nutchfs::Env& env, std::string tmp_dir, size_t memory_budget,
                                       std::string name) {
  auto own = std::make_unique<SortMemory>(memory_budget);
  SortMemory& memory = *own;
  return std::unique_ptr<Sorter>(
      new Sorter(env, std::move(tmp_dir), memory, std::move(own), std::move(name), false, 1));
}

Sorter::Sorter(nutchfs::Env& env, std::string tmp_dir, SortMemory& memory,
               std::unique_ptr<SortMemory> own_memory, std::string name, bool background,
               size_t read_sharers)
    : env_(env),
      tmp_dir_(std::move(tmp_dir)),
      name_(std::move(name)),
      own_memory_(std::move(own_memory)),
      memory_(memory),
      read_share_(memory.budget() / kReadShareDivisor / std::max<size_t>(read_sharers, 1)),
      fan_in_(FanInFor(read_share_)),
      background_(background),
      chunk_bytes_(std::max<size_t>(memory.budget() / kChunksPerBudget, kMinChunkBytes)),
      min_run_(memory.budget() / kMinRunsPerBudget),
      buffer_(std::make_unique<SortBuffer>(memory)) {}

Sorter::~Sorter() {
  WaitForSorting();
  chunks_.clear();
  buffer_.reset();
  read_memory_.Return();
  // Best effort: a run that cannot be removed is left behind in tmp_dir, which the
  // caller clears as a whole; files merged away are already gone (NotFound).
  for (const std::string& path : created_) static_cast<void>(env_.RemoveFile(path));
}

Status Sorter::Add(const EditView& edit) {
  if (finished_) return Status::InvalidArgument(name_ + ": sorter Add after Finish");
  if (edit.key.size() + edit.value.size() > kMaxEditBytes) {
    return Status::InvalidArgument(name_ + ": edit too large to sort");
  }
  const size_t size = SortBuffer::RecordSize(edit);
  if (background_ && !buffer_->empty() && buffer_->bytes() + size > chunk_bytes_) SealChunk();
  // While the sorters filling with this one, or the read buffers of a merge, hold the
  // whole pool, a spill would write a run of a few edits, a file each: below a small
  // share of the budget the sorter takes its memory beyond the budget instead.
  const bool small = chunks_held_ + buffer_->bytes() < min_run_;
  if (!buffer_->Reserve(size, small)) {
    NUTCHFS_RETURN_IF_ERROR(Spill());
    buffer_->Reserve(size);  // an empty buffer always makes room
  }
  buffer_->Add(edit);
  ++count_;
  return Status::OK();
}

std::string Sorter::NewRunPath() {
  char number[16];
  std::snprintf(number, sizeof(number), "%06zu", created_.size());
  created_.push_back(tmp_dir_ + "/" + name_ + "-run-" + number + ".edits");
  return created_.back();
}

// The full buffer becomes a chunk, sorted on a thread of its own once the chunk before
// it is sorted (one sort at a time), and a new buffer starts.
void Sorter::SealChunk() {
  WaitForSorting();
  chunks_held_ += buffer_->bytes();
  chunks_.push_back(std::move(buffer_));
  SortBuffer* chunk = chunks_.back().get();
  sorting_ = std::async(std::launch::async, [chunk] { chunk->Sort(); });
  buffer_ = std::make_unique<SortBuffer>(memory_);
}

void Sorter::WaitForSorting() {
  if (sorting_.valid()) sorting_.get();
}

std::unique_ptr<EditIterator> Sorter::InMemory() const {
  std::vector<std::unique_ptr<EditIterator>> parts;
  for (const auto& chunk : chunks_) parts.push_back(std::make_unique<SortBufferIterator>(*chunk));
  parts.push_back(std::make_unique<SortBufferIterator>(*buffer_));
  return NewMergingEditIterator(std::move(parts));
}

// Every edit held in memory goes to one run: the sorted chunks and buffer, merged.
Status Sorter::Spill() {
  // The buffer is sorted while the last chunk may still be sorting on its thread (they
  // share no memory), so that the two sorts overlap.
  buffer_->Sort();
  WaitForSorting();
  if (!dir_created_) {
    NUTCHFS_RETURN_IF_ERROR(env_.CreateDirs(tmp_dir_));
    dir_created_ = true;
  }
  std::string path = NewRunPath();
  NUTCHFS_ASSIGN_OR_RETURN(auto writer, EditFileWriter::Create(env_, path, /*sorted=*/true));
  for (auto edits = InMemory(); edits->Valid(); edits->Next()) {
    NUTCHFS_RETURN_IF_ERROR(writer->Add(edits->edit()));
  }
  NUTCHFS_RETURN_IF_ERROR(writer->Finish(/*sync=*/false));
  runs_.push_back(std::move(path));
  ++runs_spilled_;
  chunks_.clear();  // their memory goes back to the pool
  chunks_held_ = 0;
  buffer_->Clear();
  return Status::OK();
}

Result<std::vector<std::unique_ptr<EditIterator>>> Sorter::OpenRuns(
    const std::vector<std::string>& paths) {
  std::vector<std::unique_ptr<EditIterator>> runs;
  runs.reserve(paths.size());
  assert(paths.size() * read_buffer_ <= read_memory_.size());
  for (const std::string& path : paths) {
    std::span<char> buffer(read_memory_.data() + runs.size() * read_buffer_, read_buffer_);
    NUTCHFS_ASSIGN_OR_RETURN(auto run, OpenEditFile(env_, path, buffer));
    runs.push_back(std::move(run));
  }
  return runs;
}

Status Sorter::MergeRuns(const std::vector<std::string>& inputs, const std::string& output) {
  NUTCHFS_ASSIGN_OR_RETURN(auto runs, OpenRuns(inputs));
  std::unique_ptr<EditIterator> merged = NewMergingEditIterator(std::move(runs));
  NUTCHFS_ASSIGN_OR_RETURN(auto writer, EditFileWriter::Create(env_, output, /*sorted=*/true));
  for (; merged->Valid(); merged->Next()) {
    NUTCHFS_RETURN_IF_ERROR(writer->Add(merged->edit()));
  }
  NUTCHFS_RETURN_IF_ERROR(merged->status());
  NUTCHFS_RETURN_IF_ERROR(writer->Finish(/*sync=*/false));
  // Best effort: the destructor tries again.
  for (const std::string& path : inputs) static_cast<void>(env_.RemoveFile(path));
  return Status::OK();
}

// Merges groups of consecutive runs, each replaced by its merge in place (which keeps
// ties in insertion order), and stops merging as soon as fan_in_ runs would remain, so
// the last pass rewrites no more data than needed.
Status Sorter::MergePass() {
  const size_t n = runs_.size();
  size_t excess = n - fan_in_;  // REQUIRES: n > fan_in_
  std::vector<std::string> next;
  size_t i = 0;
  while (i < n) {
    size_t group = std::min({fan_in_, n - i, excess + 1});
    if (group < 2) {
      next.push_back(runs_[i++]);
      continue;
    }
    std::vector<std::string> inputs(runs_.begin() + i, runs_.begin() + i + group);
    std::string output = NewRunPath();
    NUTCHFS_RETURN_IF_ERROR(MergeRuns(inputs, output));
    next.push_back(std::move(output));
    excess -= group - 1;
    i += group;
  }
  runs_ = std::move(next);
  ++merge_passes_;
  return Status::OK();
}

Status Sorter::ReleaseMemory() {
  if (finished_ || runs_.empty() || (buffer_->empty() && chunks_.empty())) return Status::OK();
  NUTCHFS_RETURN_IF_ERROR(Spill());
  buffer_->Release();
  return Status::OK();
}

// Each run merged at once reads through an equal part of the read share (or of what the
// pool has left, if less), and at least kMinReadBuffer. A larger mapping the pool kept
// is cut to size: the rest of the pool stays with the sorters filling meanwhile.
void Sorter::TakeReadMemory() {
  const size_t runs = std::min(runs_.size(), fan_in_);
  const size_t share = std::min(memory_.available(), read_share_);
  read_buffer_ = std::clamp<size_t>(share / runs, kMinReadBuffer, kMaxReadBuffer);
  read_memory_ = memory_.Borrow(read_buffer_ * runs);
}

Result<std::unique_ptr<EditIterator>> Sorter::Finish() {
  if (finished_) return Err(Status::InvalidArgument(name_ + ": sorter Finish called twice"));
  finished_ = true;
  if (runs_.empty()) {
    buffer_->Sort();  // the last chunk may go on sorting: it is read as it sorts
    return Again();
  }
  if (!buffer_->empty() || !chunks_.empty()) NUTCHFS_RETURN_IF_ERROR(Spill());
  buffer_->Release();
  TakeReadMemory();
  while (runs_.size() > fan_in_) NUTCHFS_RETURN_IF_ERROR(MergePass());
  return Again();
}

Result<std::unique_ptr<EditIterator>> Sorter::Again() {
  if (!finished_) return Err(Status::InvalidArgument(name_ + ": sorter Again before Finish"));
  if (runs_.empty()) return InMemory();
  NUTCHFS_ASSIGN_OR_RETURN(auto runs, OpenRuns(runs_));
  return NewMergingEditIterator(std::move(runs));
}

}  // namespace webdb
