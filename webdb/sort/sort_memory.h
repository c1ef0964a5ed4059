// SortMemory: one memory budget shared by the external sorters of a session.
//
// A session has up to five sorters, but only some hold edits at any time (two filling
// while a third is read). Giving each a fixed share would spill one sorter's runs while
// the others' shares sit idle; instead each sorter takes memory from this pool as its
// buffer grows and gives it back when it is done, so a sorter that is alone may use the
// whole budget. Take() never exceeds the budget; Force() does, for the small floor a
// sorter needs to make progress at all (one record, the read buffers of a merge).
//
// The pool also keeps the mappings of buffers that are done (Keep), so that buffers
// starting later take them over (Acquire) with their pages in place. Faulting in fresh
// memory costs the kernel a zeroed page for every page touched, and for huge pages often
// a compaction as well: a sorter that spills and fills again would otherwise fault in
// all its memory anew each time. Kept mappings count against the budget like taken
// memory, so resident memory stays within the budget; a Take or Force that would not
// fit beside them unmaps them, smallest first, until it does.
//
// Other large buffers of a session that live beside the sorters (a rank's accumulators)
// borrow their memory from the pool too (Borrow), so that the budget bounds them all.
//
// Not owned by the sorters: it must outlive every sorter that uses it. Thread-safe.
#ifndef WEBDB_SORT_SORT_MEMORY_H_
#define WEBDB_SORT_SORT_MEMORY_H_

#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

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
  // Maps bytes of zeroes in place of what was mapped, in the system's page size (see
  // UseHugePages); throws std::bad_alloc if refused.
  void Map(size_t bytes);
  // Grows or shrinks to bytes, keeping the contents (up to bytes) and the page size,
  // perhaps at another address; false (nothing changed) when refused.
  bool Remap(size_t bytes);
  void Unmap();
  // Moves the contents into huge pages, now (MADV_COLLAPSE) and as the mapping grows
  // (MADV_HUGEPAGE), where the system has them; once per mapping.
  void UseHugePages();

 private:
  char* data_ = nullptr;
  size_t bytes_ = 0;
  bool huge_pages_ = false;
};

class SortMemory;

// Memory borrowed from a pool (SortMemory::Borrow): all its bytes count as taken until
// it goes, when they are given back and its mapping kept for the buffers after it.
// Move-only; the pool must outlive it.
class BorrowedMemory {
 public:
  BorrowedMemory() = default;
  ~BorrowedMemory() { Return(); }
  BorrowedMemory(BorrowedMemory&& other) noexcept;
  BorrowedMemory& operator=(BorrowedMemory&& other) noexcept;

  char* data() const { return memory_.data(); }
  size_t size() const { return memory_.size(); }
  // Gives the bytes back to the pool, which keeps the mapping if it fits.
  void Return();

 private:
  friend class SortMemory;
  BorrowedMemory(SortMemory* pool, MappedMemory memory)
      : pool_(pool), memory_(std::move(memory)) {}

  SortMemory* pool_ = nullptr;
  MappedMemory memory_;
};

class SortMemory {
 public:
  explicit SortMemory(size_t budget) : budget_(budget) {}
  SortMemory(const SortMemory&) = delete;
  SortMemory& operator=(const SortMemory&) = delete;

  size_t budget() const { return budget_; }

  // Whether a buffer has been filled again (after a spill): the session is larger than
  // memory, and buffers use huge pages from then on (SortBuffer). Fresh huge pages cost
  // the kernel, and on a VM the host, far more than small ones; they pay for themselves
  // only in memory filled many times, where they save TLB misses.
  bool reused() const { return reused_.load(std::memory_order_relaxed); }
  void SetReused() { reused_.store(true, std::memory_order_relaxed); }
  // Bytes not taken (0 when forced takes went beyond the budget); kept mappings' bytes
  // count as available, since a Take unmaps them when it needs them.
  size_t available() const;
  // Bytes taken now (kept mappings not included).
  size_t taken() const;
  // Bytes of the kept mappings; 0 when none is kept.
  size_t kept() const;

  // Takes bytes if that stays within the budget; false (and nothing taken) otherwise.
  bool Take(size_t bytes);
  // Takes bytes even beyond the budget.
  void Force(size_t bytes);
  // Gives back bytes taken before.
  void Give(size_t bytes);

  // Keeps m for a later buffer if it fits in the budget beside what is taken; the
  // mappings kept before stay as far as they fit beside it, the smallest going first.
  void Keep(MappedMemory m);
  // A mapping for a buffer of at least `bytes`, and how many of its bytes are taken from
  // the pool for the caller (who gives them back when done).
  struct Mapping {
    MappedMemory memory;
    size_t taken = 0;
  };
  // The smallest kept mapping of at least `bytes`, or the largest kept one grown to
  // `bytes`, its bytes (before growing) taken; else a fresh mapping of `bytes`, none
  // taken. Throws std::bad_alloc if the system refuses the memory.
  Mapping Acquire(size_t bytes);
  // A mapping of `bytes` (a kept one cut to size, or grown, or a fresh one; none for 0),
  // all of it taken, beyond the budget if need be (Force). Throws std::bad_alloc if the system
  // refuses the memory.
  BorrowedMemory Borrow(size_t bytes);

 private:
  // Unmaps kept mappings, smallest first, until bytes more fit beside the rest.
  void DropKeptToFit(size_t bytes);  // REQUIRES: mu_ held

  const size_t budget_;
  mutable std::mutex mu_;
  size_t taken_ = 0;                // guarded by mu_
  size_t kept_bytes_ = 0;           // guarded by mu_: the sizes of kept_ summed
  std::vector<MappedMemory> kept_;  // guarded by mu_; sorted by size, smallest first
  std::atomic<bool> reused_{false};
};

}  // namespace webdb

#endif  // WEBDB_SORT_SORT_MEMORY_H_
