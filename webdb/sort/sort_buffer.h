// SortBuffer: the in-memory part of the external sorter (webdb/sort/sorter.h). Edits are
// packed into one block of memory: records grow from the front (sizes, order, kind, key,
// value; no per-edit heap object), 16-byte sort entries from the back. Sort() orders the
// entries by (key bytewise, order, insertion), so equal (key, order) pairs keep their
// insertion order, whatever the keys.
//
// The block starts at 1 MiB and doubles as it fills, up to the shared budget
// (SortMemory), so a budget far above the data (or the machine) costs nothing; the
// buffer takes memory from the pool as it fills, in steps of a sixteenth of the budget
// (4 KiB to 1 MiB: several buffers fill at once), and keeps it until Release(). The
// block is memory mapped (MappedMemory, webdb/sort/sort_memory.h), not taken from the heap,
// where glibc kept freed blocks resident beyond the budget; released, it
// goes to the pool, which keeps it for the next buffer to start in. Not thread-safe,
// except that while one thread sorts the buffer, another may read the sorted front of it
// (WaitSorted, Get).
#ifndef WEBDB_SORT_SORT_BUFFER_H_
#define WEBDB_SORT_SORT_BUFFER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "webdb/sort/sort_memory.h"
#include "webdb/table/iterator.h"

namespace webdb {

class SortBuffer {
 public:
  explicit SortBuffer(SortMemory& memory);
  ~SortBuffer();
  SortBuffer(const SortBuffer&) = delete;
  SortBuffer& operator=(const SortBuffer&) = delete;

  // Bytes a record takes in the buffer, its sort entry included.
  static size_t RecordSize(const EditView& e);
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }
  // Bytes the records held take, their sort entries included.
  size_t bytes() const { return used_ + n_ * sizeof(Entry); }

  // Makes room for one more record of record_size bytes, taking memory from the pool.
  // False when the pool cannot give it (spill, Clear(), then add), unless beyond_budget:
  // then it takes the memory beyond the budget. An empty buffer always makes room.
  bool Reserve(size_t record_size, bool beyond_budget = false);
  // REQUIRES: Reserve(RecordSize(edit)) returned true since the last Add().
  void Add(const EditView& edit);

  // Sorts by (key, order, insertion). Radix passes over 8-byte chunks of the keys
  // (7 key bytes and how many remain) order the entries; a range of a few entries is
  // sorted by its chunks after the bytes its keys share, and only entries whose chunks
  // agree are compared on the rest of their keys. The first pass puts every entry into
  // the group of its first chunk, and groups are then sorted front to back: the sorted
  // ones are made final (WaitSorted) every thousand entries or so.
  void Sort();
  // Waits until the i-th edit in sorted order is final, while another thread sorts.
  // REQUIRES: Sort() called (on any thread) since the last Add(); i < size().
  void WaitSorted(size_t i) const;

  // The i-th edit in sorted order. REQUIRES: WaitSorted(i), or Sort() returned, since the
  // last Add(); i < size().
  EditView Get(size_t i) const;

  // Forgets every record; keeps the memory taken unless a huge record made the block
  // grow beyond the budget. A block kept to be filled again is memory used many times:
  // it moves to huge pages, and so do the pool's later buffers (SortMemory::reused).
  void Clear();
  // Forgets every record and gives all memory back to the pool.
  void Release();

 private:
  struct Entry {
    uint64_t chunk;
    uint64_t offset;
  };

  static EditView Decode(const char* arena, uint64_t offset);
  // With sorted (the top level), the groups of equal chunks sorted so far are made final
  // in steps of about a thousand entries.
  static void SortRange(const char* arena, Entry* first, Entry* last, size_t depth, int levels,
                        std::atomic<size_t>* sorted = nullptr, const Entry* base = nullptr);
  static void RadixSort(Entry* first, Entry* last, int byte);
  // Entries [0, n) are final: wakes the readers waiting for them.
  static void Publish(std::atomic<size_t>* sorted, size_t n);
  // Sorts [first, last) by (key, order, insertion). REQUIRES: the keys share their first
  // depth bytes, and each entry's chunk is its key's chunk at depth.
  static void SortByChunkThenKey(const char* arena, Entry* first, Entry* last, size_t depth);
  void NoteKey(std::string_view key);
  void Allocate(size_t bytes);
  bool Grow(size_t bytes);

  static constexpr size_t kFirstSlots = (size_t{1} << 20) / 16;  // 1 MiB of entries

  size_t capacity() const { return slots_ * sizeof(Entry); }
  char* arena() const { return block_.data(); }
  Entry* slots() const { return reinterpret_cast<Entry*>(block_.data()); }
  Entry* entries() const { return slots() + slots_ - n_; }

  SortMemory& memory_;
  const size_t budget_slots_;
  const size_t step_;  // memory is taken from the pool in steps of this many bytes
  MappedMemory block_;
  size_t slots_ = 0;  // size of block_ in entries
  size_t taken_ = 0;  // bytes taken from memory_
  size_t used_ = 0;   // arena bytes in use
  size_t n_ = 0;      // records (and entries) held
  std::string_view first_key_;
  size_t common_ = 0;  // length of the prefix all keys held share
  // Entries [0, sorted_) are in their final sorted place. Written by the sorting thread
  // (release), read by readers of the front (acquire).
  std::atomic<size_t> sorted_{0};
};

}  // namespace webdb

#endif  // WEBDB_SORT_SORT_BUFFER_H_
