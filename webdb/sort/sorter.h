// External sorter for edits: accepts edits in any order and returns them sorted by
// (key bytewise, order ascending), with equal pairs in insertion order (stable).
//
// Edits are packed into an in-memory buffer (webdb/sort/sort_buffer.h) that takes memory
// from a SortMemory pool, shared with the session's other sorters. With `background`,
// the buffer is cut into chunks of an eighth of the budget, and each full chunk is
// sorted on a thread of its own (one at a time) while the next fills; the sorted
// chunks are merged when read or spilled (ties by chunk, i.e. insertion, order), so
// the sorted stream is the same whatever the thread timing. Reading from memory may
// start while the last chunk still sorts (SortBuffer sorts front to back). When the
// pool has no more to give, the chunks are merged and spilled as a sorted edit file (a
// run) into tmp_dir; Finish() merges the runs, in several passes only when there are
// more than fan_in() of them, each run read through an equal part of a quarter of the
// budget (between 128 KiB and 4 MiB), so that the sorters filling meanwhile keep the
// rest of the pool for large runs (at a 256 MiB budget, 512 runs merge in one pass).
// Sorters read at the same time (read_sharers of them) share that quarter, and so
// each merges fewer runs at once.
// The read buffers are one mapping from the pool, like the sort buffers', so that their
// memory goes back to the pool (and to the next buffers) when the sorter is done.
// Memory use stays within the pool's budget plus a small constant: the largest single
// edit, one frame of the edit file being written, the Env's write buffer, the floor of
// 128 KiB per merged run when the pool is exhausted, and a 256th of the budget: a sorter
// that holds less than that when the pool has no more to give (others filling at the
// same time hold it) takes its memory beyond the budget rather than spill a tiny run.
//
// The Sorter owns its run files (tmp_dir/<name>-run-NNNNNN.edits) and removes them when
// destroyed; the iterator Finish() returns reads them (or the memory buffer), so it must
// be destroyed before the Sorter. The Env and the pool must outlive the Sorter. Not
// thread-safe (its own sorting thread only ever touches full chunks, which the Sorter
// waits for before it spills or frees them, and reads only up to their sorted front
// before that).
#ifndef WEBDB_SORT_SORTER_H_
#define WEBDB_SORT_SORTER_H_

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/sort/sort_memory.h"
#include "webdb/table/iterator.h"

namespace webdb {

using nutchfs::Result;

class SortBuffer;

class Sorter final : public EditSink {
 public:
  // At most this many runs are merged at once.
  static constexpr size_t kMaxFanIn = 512;

  // name tells apart the runs of several sorters sharing tmp_dir (created if missing).
  // The sorter takes its memory from the shared pool; read_sharers is how many sorters
  // of the pool (this one included) are read at the same time.
  static std::unique_ptr<Sorter> Create(nutchfs::Env& env, std::string tmp_dir,
                                        SortMemory& memory, std::string name,
                                        bool background = false, size_t read_sharers = 1);
  // A sorter with a pool of memory_budget bytes of its own.
  static std::unique_ptr<Sorter> Create(nutchfs::Env& env, std::string tmp_dir,
                                        size_t memory_budget, std::string name);
  ~Sorter() override;
  Sorter(const Sorter&) = delete;
  Sorter& operator=(const Sorter&) = delete;

  // Copies the edit. Fails when a run cannot be spilled, or after Finish().
  Status Add(const EditView& edit) override;
  // The sorted stream of every edit added. Without a spill it iterates the memory
  // buffer (no disk I/O). Once only; no Add() afterwards.
  Result<std::unique_ptr<EditIterator>> Finish();
  // The same sorted stream once more (the memory buffer or the runs are kept until the
  // Sorter goes). REQUIRES: Finish() succeeded and the iterator it returned is gone.
  Result<std::unique_ptr<EditIterator>> Again();
  // If runs were spilled already, spills the edits held in memory too, which gives their
  // memory back to the pool for the sorters filling now; a sorter that never spilled
  // keeps its edits (sorting them in memory later is cheaper). Before Finish() only.
  Status ReleaseMemory();

  uint64_t count() const { return count_; }
  // For tests and progress reports: runs spilled from memory, intermediate merge passes
  // Finish() made, and the number of runs merged at once.
  size_t runs_spilled() const { return runs_spilled_; }
  int merge_passes() const { return merge_passes_; }
  size_t fan_in() const { return fan_in_; }

 private:
  Sorter(nutchfs::Env& env, std::string tmp_dir, SortMemory& memory,
         std::unique_ptr<SortMemory> own_memory, std::string name, bool background,
         size_t read_sharers);
  std::string NewRunPath();
  void SealChunk();
  void WaitForSorting();
  // The edits held in memory, sorted. REQUIRES: buffer_ sorted (the last chunk may still
  // be sorting: its iterator reads its sorted front as it grows).
  std::unique_ptr<EditIterator> InMemory() const;
  Status Spill();
  void TakeReadMemory();
  Status MergePass();
  Status MergeRuns(const std::vector<std::string>& inputs, const std::string& output);
  Result<std::vector<std::unique_ptr<EditIterator>>> OpenRuns(
      const std::vector<std::string>& paths);

  nutchfs::Env& env_;
  const std::string tmp_dir_;
  const std::string name_;
  std::unique_ptr<SortMemory> own_memory_;  // when not shared
  SortMemory& memory_;
  const size_t read_share_;  // of the budget, for the runs being merged
  const size_t fan_in_;
  const bool background_;
  const size_t chunk_bytes_;    // with background_, a buffer this full becomes a chunk
  const size_t min_run_;        // a sorter holding less takes memory beyond the budget
  size_t chunks_held_ = 0;      // bytes of the records in chunks_
  size_t read_buffer_ = 0;      // read buffer of each run being merged
  BorrowedMemory read_memory_;  // their buffers, from memory_
  std::unique_ptr<SortBuffer> buffer_;              // filling
  std::vector<std::unique_ptr<SortBuffer>> chunks_;  // full, in insertion order
  std::future<void> sorting_;  // the sort of chunks_.back() while it runs
  std::vector<std::string> runs_;     // sorted runs in insertion order
  std::vector<std::string> created_;  // every file made, for cleanup
  uint64_t count_ = 0;
  size_t runs_spilled_ = 0;
  int merge_passes_ = 0;
  bool dir_created_ = false;
  bool finished_ = false;
};

}  // namespace webdb

#endif  // WEBDB_SORT_SORTER_H_
