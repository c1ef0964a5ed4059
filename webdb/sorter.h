// External sorter for edits: accepts edits in any order and returns them sorted by
// (key bytewise, order ascending), with equal pairs in insertion order (stable).
//
// Edits are copied into one memory buffer of memory_budget bytes (records from the
// front, 16-byte sort entries from the back). When it is full its entries are sorted and
// spilled as a sorted edit file (a run) into tmp_dir; Finish() merges the runs, in
// several passes when there are more than fan_in() of them, each run read through
// budget / (fan_in() + 1) bytes. Memory use stays within the budget plus a small
// constant: the largest single edit, one frame of the edit file being written, the Env's
// write buffer, and for budgets under 384 KiB the floor of 128 KiB per merged run.
//
// The Sorter owns its run files (tmp_dir/<name>-run-NNNNNN.edits) and removes them when
// destroyed; the iterator Finish() returns reads them (or the memory buffer), so it must
// be destroyed before the Sorter. The Env must outlive the Sorter. Not thread-safe.
#ifndef WEBDB_SORTER_H_
#define WEBDB_SORTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/iterator.h"

namespace webdb {

using nutchfs::Result;

class SortBuffer;  // the in-memory part, defined in sorter.cc

class Sorter final : public EditSink {
 public:
  // At most this many runs are merged at once.
  static constexpr size_t kMaxFanIn = 64;

  // name tells apart the runs of several sorters sharing tmp_dir (created if missing).
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

  uint64_t count() const { return count_; }
  // For tests and progress reports: runs spilled from memory, intermediate merge passes
  // Finish() made, and the number of runs merged at once.
  size_t runs_spilled() const { return runs_spilled_; }
  int merge_passes() const { return merge_passes_; }
  size_t fan_in() const { return fan_in_; }

 private:
  Sorter(nutchfs::Env& env, std::string tmp_dir, size_t memory_budget, std::string name);
  std::string NewRunPath();
  Status Spill();
  Status MergePass();
  Status MergeRuns(const std::vector<std::string>& inputs, const std::string& output);
  Result<std::vector<std::unique_ptr<EditIterator>>> OpenRuns(
      const std::vector<std::string>& paths);

  nutchfs::Env& env_;
  const std::string tmp_dir_;
  const std::string name_;
  const size_t fan_in_;
  const size_t read_buffer_;  // read buffer of each run being merged
  std::unique_ptr<SortBuffer> buffer_;
  std::vector<std::string> runs_;     // sorted runs in insertion order
  std::vector<std::string> created_;  // every file made, for cleanup
  uint64_t count_ = 0;
  size_t runs_spilled_ = 0;
  int merge_passes_ = 0;
  bool dir_created_ = false;
  bool finished_ = false;
};

}  // namespace webdb

#endif  // WEBDB_SORTER_H_
