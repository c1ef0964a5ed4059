// SortMemory: one memory budget shared by the external sorters of a session.
//
// A session has up to five sorters, but only some hold edits at any time (two filling
// while a third is read). Giving each a fixed share would spill one sorter's runs while
// the others' shares sit idle; instead each sorter takes memory from this pool as its
// buffer grows and gives it back when it is done, so a sorter that is alone may use the
// whole budget. Take() never exceeds the budget; Force() does, for the small floor a
// sorter needs to make progress at all (one record, the read buffers of a merge).
//
// The pool also keeps the mapping of a sorter that is done (Keep), so that the next
// sorter to start takes it over (TakeKept) with its pages in place. Faulting in fresh
// memory costs the kernel a zeroed page for every page touched, and for huge pages often
// a compaction as well: up to a quarter of a load's CPU when every stage's sorter mapped
// its own. A kept mapping counts against the budget like taken memory, so resident
// memory stays within the budget; any Take or Force that would not fit beside it unmaps
// it first.
//
// Not owned by the sorters: it must outlive every sorter that uses it. Thread-safe.
#ifndef WEBDB_SORT_MEMORY_H_
#define WEBDB_SORT_MEMORY_H_

#include <cstddef>
#include <mutex>

namespace webdb {

// Anonymous memory mapped for one sort buffer, not taken from the heap: it grows by
// remapping (no second copy resident meanwhile) and, unmapped, goes back to the system
// at once (glibc keeps freed heap blocks of up to 32 MiB resident). Pages never touched
// cost nothing. Move-only.
class MappedMemory {
 public:
  MappedMemory() = default;
  ~MappedMemory() { Unmap(); }
  MappedMemory(MappedMemory&& other) noexcept;
  MappedMemory& operator=(MappedMemory&& other) noexcept;

  char* data() const { return data_; }
  size_t size() const { return bytes_; }
  // Maps bytes of zeroes in place of what was mapped; throws std::bad_alloc if refused.
  void Map(size_t bytes);
  // Grows to bytes, keeping the contents, perhaps at another address; false (nothing
  // changed) when refused.
  bool Remap(size_t bytes);
  void Unmap();

 private:
  char* data_ = nullptr;
  size_t bytes_ = 0;
};

class SortMemory {
 public:
  explicit SortMemory(size_t budget) : budget_(budget) {}
  SortMemory(const SortMemory&) = delete;
  SortMemory& operator=(const SortMemory&) = delete;

  size_t budget() const { return budget_; }
  // Bytes not taken (0 when forced takes went beyond the budget); a kept mapping's bytes
  // count as available, since a Take unmaps it when it needs them.
  size_t available() const;
  // Bytes taken now (a kept mapping not included).
  size_t taken() const;
  // Size of the kept mapping; 0 when none is kept.
  size_t kept() const;

  // Takes bytes if that stays within the budget; false (and nothing taken) otherwise.
  bool Take(size_t bytes);
  // Takes bytes even beyond the budget.
  void Force(size_t bytes);
  // Gives back bytes taken before.
  void Give(size_t bytes);

  // Keeps m for the next sorter (the larger of m and the mapping kept before), if it
  // fits in the budget beside what is taken; unmaps it otherwise.
  void Keep(MappedMemory m);
  // The kept mapping, its bytes now taken by the caller (who gives them back when
  // done); an empty one when none is kept.
  MappedMemory TakeKept();

 private:
  void DropKeptToFit(size_t bytes);  // REQUIRES: mu_ held

  const size_t budget_;
  mutable std::mutex mu_;
  size_t taken_ = 0;   // guarded by mu_
  MappedMemory kept_;  // guarded by mu_
};

}  // namespace webdb

#endif  // WEBDB_SORT_MEMORY_H_
