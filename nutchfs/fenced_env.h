// FencedEnv: an Env that asks a fence before every operation that changes a file —
// creating, writing, syncing or closing a written file, renaming, removing, making or
// syncing directories, copying — and returns the fence's error instead, doing nothing,
// when it says no. Reads pass through. A distributed writer fences every Env it writes
// through with its lease (docs/NUTCHFS.md, "The fence"), so that a writer that lost its
// lease changes nothing more.
//
// Fence: the check, set once (before the Envs are shared between threads); until then
// every operation passes. Check() is called on the operating thread and must be cheap
// (the lease's does no I/O). Thread-safe once set.
#ifndef NUTCHFS_FENCED_ENV_H_
#define NUTCHFS_FENCED_ENV_H_

#include <atomic>
#include <functional>
#include <memory>

#include "nutchfs/env.h"

namespace nutchfs {

class Fence {
 public:
  Fence() = default;
  Fence(const Fence&) = delete;
  Fence& operator=(const Fence&) = delete;

  // REQUIRES: called at most once.
  void Set(std::function<Status()> check);
  // OK, or the error of the check once set.
  Status Check() const;

 private:
  std::function<Status()> check_;
  std::atomic<bool> set_{false};
};

// REQUIRES: base and fence outlive the result.
std::unique_ptr<Env> NewFencedEnv(Env* base, const Fence* fence);

}  // namespace nutchfs

#endif  // NUTCHFS_FENCED_ENV_H_
