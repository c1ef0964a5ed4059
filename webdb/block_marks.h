// BlockMarks: which data blocks of a link table a session's page changes can reach
// through a join, so that every other block without edits is copied as it is.
//
// Stage 3 keeps a linksByMD5 row only if its source md5 still has a page, and stage 4 a
// linksByURL row only if its target url has one (and takes targetHasOutlink from it).
// A row without edits can therefore change only if its md5 is gone (stage 2's notices)
// or its url's page appeared, went or flipped its numOutlinks > 0 status (stage 1's
// notices). Stages 1 and 2 hand each notice's key to a NoticeSink; BlockMarks, built
// over the index of the old link table that the notices concern, marks every data
// block whose join keys (the md5 or url prefix of its keys) can include it. Memory is
// one flag per block of that table whatever the number of notices, and a group of the
// table's index per thread that notices; marking depends only on the old table and the
// notices, so it is deterministic.
//
// The Table must outlive the BlockMarks. Notice() may be called from several threads at
// once (the workers of a stage's key ranges); marked() and notices() once they are done.
#ifndef WEBDB_BLOCK_MARKS_H_
#define WEBDB_BLOCK_MARKS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "webdb/table.h"

namespace webdb {

// Where stages 1 and 2 report notices: the url of each target change, the md5 of each
// md5 gone.
class NoticeSink {
 public:
  virtual ~NoticeSink() = default;
  virtual void Notice(std::string_view key) = 0;
};

class BlockMarks final : public NoticeSink {
 public:
  // The join key of a row key: a prefix of it, nondecreasing in key order
  // (UrlOfLinkUrlKey for linksByURL, Md5OfKey for linksByMD5).
  using JoinKeyFn = std::string_view (*)(std::string_view key);

  BlockMarks(const Table& table, JoinKeyFn join_key);
  BlockMarks(const BlockMarks&) = delete;
  BlockMarks& operator=(const BlockMarks&) = delete;

  // Marks every block that can hold a row whose join key is key. Keys may come in
  // any order.
  void Notice(std::string_view key) override;

  bool marked(uint64_t block) const {
    return block < blocks_ && (all_marked_.load(std::memory_order_relaxed) ||
                               marked_[block].load(std::memory_order_relaxed));
  }
  uint64_t notices() const { return notices_.load(std::memory_order_relaxed); }

 private:
  // This thread's reader of table_'s index.
  Table::IndexReader& ThreadIndexReader() const;

  const Table& table_;
  const JoinKeyFn join_key_;
  const uint64_t id_;  // unique among the BlockMarks of the process
  const uint64_t blocks_;
  std::unique_ptr<std::atomic<bool>[]> marked_;  // one per data block of table_
  std::atomic<bool> all_marked_{false};          // the index could not be read
  std::atomic<uint64_t> notices_{0};
};

}  // namespace webdb

#endif  // WEBDB_BLOCK_MARKS_H_
