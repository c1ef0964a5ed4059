// SortBuffer: the in-memory part of the external sorter (webdb/sorter.h). Edits are
// packed into one block of memory: records grow from the front (sizes, order, kind, key,
// value; no per-edit heap object), 16-byte sort entries from the back. Sort() orders the
// entries by (key bytewise, order, insertion), so equal (key, order) pairs keep their
// insertion order, whatever the keys.
//
// The block starts at 1 MiB and doubles as it fills, up to the shared budget
// (SortMemory), so a budget far above the data (or the machine) costs nothing; the
// buffer takes memory from the pool as it fills, in steps of a MiB, and keeps it until
// Release(). The block is memory mapped (MappedMemory, webdb/sort_memory.h), not taken
// from the heap, where glibc kept freed blocks resident beyond the budget; released, it
// goes to the pool, which keeps it for the next buffer to start in. Not thread-safe.
#ifndef WEBDB_SORT_BUFFER_H_
#define WEBDB_SORT_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "webdb/iterator.h"
#include "webdb/sort_memory.h"

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
  // False when the pool cannot give it (spill, Clear(), then add). An empty buffer
  // always makes room, beyond the budget if it must.
  bool Reserve(size_t record_size);
  // REQUIRES: Reserve(RecordSize(edit)) returned true since the last Add().
  void Add(const EditView& edit);

  // Sorts by (key, order, insertion). Radix passes over 8-byte chunks of the keys
  // (7 key bytes and how many remain) order the entries; only entries whose keys agree
  // on every byte looked at are compared in full.
  void Sort();

  // The i-th edit in sorted order. REQUIRES: Sort() since the last Add(); i < size().
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
  static void SortRange(const char* arena, Entry* first, Entry* last, size_t depth, int levels);
  static void RadixSort(Entry* first, Entry* last, int byte);
  static void SortByFullKey(const char* arena, Entry* first, Entry* last, size_t depth);
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
  MappedMemory block_;
  size_t slots_ = 0;  // size of block_ in entries
  size_t taken_ = 0;  // bytes taken from memory_
  size_t used_ = 0;   // arena bytes in use
  size_t n_ = 0;      // records (and entries) held
  std::string_view first_key_;
  size_t common_ = 0;  // length of the prefix all keys held share
};

}  // namespace webdb

#endif  // WEBDB_SORT_BUFFER_H_
