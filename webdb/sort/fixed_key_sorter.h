// FixedKeySorter: the sorter of a stream whose edits all have keys of one size (up to 24 bytes),
// no value and kind 0 (a rank's edges stream: block and md5, the target id as order), in the
// same order as Sorter's (key bytewise, order, insertion) but without its variable-length
// records: each edit is a 32-byte entry (the key as three big-endian words, the order), sorted
// by one counting pass on the 16 highest bits where the keys differ into a second array, then
// each bucket there by comparison, and read back where it is. Entries equal in key and order are
// the same edit, so no stable sort is needed for the Sorter's order.
//
// The entries and the array they are sorted into each take at most a quarter of the pool's
// budget (SortMemory), taken as they grow. An edit of another shape, or a pool that cannot give
// the memory, sends the stream to a Sorter (made by the factory given) from then on: the edits
// held go to it first, in insertion order, while their memory still counts as taken (the Sorter
// spills sooner rather than exceed the budget), and then go back to the pool. The sorted stream
// is the same either way. Done, the two mappings go to the pool, kept for the next buffers
// (SortMemory::Keep). Not thread-safe; the pool must outlive it, and the iterator Finish()
// returns must go before it.
#ifndef WEBDB_SORT_FIXED_KEY_SORTER_H_
#define WEBDB_SORT_FIXED_KEY_SORTER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "webdb/sort/sort_memory.h"
#include "webdb/sort/sorter.h"
#include "webdb/table/iterator.h"

namespace webdb {

class FixedKeySorter final : public EditSink {
 public:
  static constexpr size_t kMaxKeySize = 24;

  // REQUIRES: 0 < key_size <= kMaxKeySize.
  FixedKeySorter(SortMemory& memory, size_t key_size,
                 std::function<std::unique_ptr<Sorter>()> fallback);
  ~FixedKeySorter() override;
  FixedKeySorter(const FixedKeySorter&) = delete;
  FixedKeySorter& operator=(const FixedKeySorter&) = delete;

  Status Add(const EditView& edit) override;
  // The sorted stream of every edit added. Once only; no Add() afterwards.
  Result<std::unique_ptr<EditIterator>> Finish();
  // The Sorter the stream went to, or nullptr while it is held here.
  const Sorter* fallback() const { return sorter_.get(); }

  struct Entry {
    uint64_t key[3];
    uint64_t order;
  };

 private:
  bool Fits(const EditView& edit) const;
  // Room for one more entry (and as much scatter room): false when the pool refuses it.
  bool Grow();
  // Sends the edits held to the Sorter, which takes every later edit.
  Status FallBack();
  void Sort();
  void Free();

  SortMemory& memory_;
  const size_t key_size_;
  const size_t max_entries_;
  std::function<std::unique_ptr<Sorter>()> make_sorter_;
  std::unique_ptr<Sorter> sorter_;
  MappedMemory entries_;
  MappedMemory scatter_;
  size_t capacity_ = 0;  // entries entries_ (and scatter_) hold
  size_t n_ = 0;
  uint64_t differ_[3] = {0, 0, 0};  // the bits where any key held differs from the first
  size_t taken_ = 0;  // bytes taken from memory_
  bool finished_ = false;
};

}  // namespace webdb

#endif  // WEBDB_SORT_FIXED_KEY_SORTER_H_
