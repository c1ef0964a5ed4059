#include "webdb/block_marks.h"

#include <memory>

namespace webdb {
namespace {

std::atomic<uint64_t> next_marks_id{1};

// The index reader a thread noticing keys uses, for the BlockMarks it served last
// (known by id: an address may be reused by a later BlockMarks over another table).
struct ThreadIndex {
  uint64_t marks_id = 0;
  std::unique_ptr<Table::IndexReader> reader;
};
thread_local ThreadIndex thread_index;

}  // namespace

BlockMarks::BlockMarks(const Table& table, JoinKeyFn join_key)
    : table_(table),
      join_key_(join_key),
      id_(next_marks_id.fetch_add(1, std::memory_order_relaxed)),
      blocks_(table.num_blocks()),
      marked_(std::make_unique<std::atomic<bool>[]>(blocks_)) {}

Table::IndexReader& BlockMarks::ThreadIndexReader() const {
  if (thread_index.marks_id != id_) {
    thread_index.reader = std::make_unique<Table::IndexReader>(table_);
    thread_index.marks_id = id_;
  }
  return *thread_index.reader;
}

// Block i holds keys in (last key of block i-1, last key of block i], so its join keys
// lie in [J(i-1), J(i)] with J(b) the join key of block b's last key. The blocks that
// can hold `key` are therefore the first block with J(i) >= key and every following
// block as long as the one before it ends at J == key. Each thread reads the index
// through a reader of its own, which keeps the group it read last: notices come in key
// order from each thread, so a group is read about once a thread. If the index cannot
// be read, every block is marked (a marked block is merged row by row, which is always
// right), and the stage that reads the table reports the error.
void BlockMarks::Notice(std::string_view key) {
  notices_.fetch_add(1, std::memory_order_relaxed);
  Table::IndexReader& index = ThreadIndexReader();
  Result<uint64_t> first = index.FirstBlockEndingAtOrAbove(key, join_key_);
  if (!first) return all_marked_.store(true, std::memory_order_relaxed);
  for (uint64_t i = *first; i < blocks_; ++i) {
    marked_[i].store(true, std::memory_order_relaxed);
    Result<std::string_view> last = index.LastKey(i);
    if (!last) return all_marked_.store(true, std::memory_order_relaxed);
    if (join_key_(*last) != key) break;
  }
}

}  // namespace webdb
