#include "webdb/block_marks.h"

#include <algorithm>

namespace webdb {

BlockMarks::BlockMarks(const Table& table, JoinKeyFn join_key)
    : table_(table),
      join_key_(join_key),
      blocks_(table.num_blocks()),
      marked_(std::make_unique<std::atomic<bool>[]>(blocks_)) {}

std::string_view BlockMarks::JoinKeyOfBlock(uint64_t block) const {
  return join_key_(table_.block_last_key(block));
}

// Block i holds keys in (last key of block i-1, last key of block i], so its join keys
// lie in [J(i-1), J(i)] with J(b) the join key of block b's last key. The blocks that
// can hold `key` are therefore the first block with J(i) >= key and every following
// block as long as the one before it ends at J == key.
void BlockMarks::Notice(std::string_view key) {
  notices_.fetch_add(1, std::memory_order_relaxed);
  const uint64_t n = blocks_;
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (JoinKeyOfBlock(mid) < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  for (uint64_t i = lo; i < n; ++i) {
    marked_[i].store(true, std::memory_order_relaxed);
    if (JoinKeyOfBlock(i) != key) break;
  }
}

}  // namespace webdb
