// SortMemory: one memory budget shared by the external sorters of a session.
//
// A session has up to five sorters, but only some hold edits at any time (two filling
// while a third is read). Giving each a fixed share would spill one sorter's runs while
// the others' shares sit idle; instead each sorter takes memory from this pool as its
// buffer grows and gives it back when it is done, so a sorter that is alone may use the
// whole budget. Take() never exceeds the budget; Force() does, for the small floor a
// sorter needs to make progress at all (one record, the read buffers of a merge).
//
// Not owned by the sorters: it must outlive every sorter that uses it. Thread-safe.
#ifndef WEBDB_SORT_MEMORY_H_
#define WEBDB_SORT_MEMORY_H_

#include <cstddef>
#include <mutex>

namespace webdb {

class SortMemory {
 public:
  explicit SortMemory(size_t budget) : budget_(budget) {}
  SortMemory(const SortMemory&) = delete;
  SortMemory& operator=(const SortMemory&) = delete;

  size_t budget() const { return budget_; }
  // Bytes not taken (0 when forced takes went beyond the budget).
  size_t available() const;
  // Bytes taken now.
  size_t taken() const;

  // Takes bytes if that stays within the budget; false (and nothing taken) otherwise.
  bool Take(size_t bytes);
  // Takes bytes even beyond the budget.
  void Force(size_t bytes);
  // Gives back bytes taken before.
  void Give(size_t bytes);

 private:
  const size_t budget_;
  mutable std::mutex mu_;
  size_t taken_ = 0;  // guarded by mu_
};

}  // namespace webdb

#endif  // WEBDB_SORT_MEMORY_H_
