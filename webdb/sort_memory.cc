#include "webdb/sort_memory.h"

#include <cassert>

namespace webdb {

size_t SortMemory::available() const {
  std::lock_guard<std::mutex> lock(mu_);
  return taken_ < budget_ ? budget_ - taken_ : 0;
}

size_t SortMemory::taken() const {
  std::lock_guard<std::mutex> lock(mu_);
  return taken_;
}

bool SortMemory::Take(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (taken_ > budget_ || bytes > budget_ - taken_) return false;
  taken_ += bytes;
  return true;
}

void SortMemory::Force(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  taken_ += bytes;
}

void SortMemory::Give(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  assert(bytes <= taken_);
  taken_ -= bytes;
}

}  // namespace webdb
