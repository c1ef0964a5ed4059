#include "webdb/sort_memory.h"

#include <sys/mman.h>

#include <cassert>
#include <new>
#include <utility>

namespace webdb {

MappedMemory::MappedMemory(MappedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

MappedMemory& MappedMemory::operator=(MappedMemory&& other) noexcept {
  if (this != &other) {
    Unmap();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void MappedMemory::Map(size_t bytes) {
  Unmap();
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // Huge pages where the system allows them: fewer page faults as the block fills, and
  // fewer TLB misses in the radix passes (advice only: ignored where unsupported).
  static_cast<void>(::madvise(p, bytes, MADV_HUGEPAGE));
  data_ = static_cast<char*>(p);
  bytes_ = bytes;
}

bool MappedMemory::Remap(size_t bytes) {
  void* p = ::mremap(data_, bytes_, bytes, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) return false;
  data_ = static_cast<char*>(p);
  bytes_ = bytes;
  return true;
}

void MappedMemory::Unmap() {
  if (data_ != nullptr) ::munmap(data_, bytes_);
  data_ = nullptr;
  bytes_ = 0;
}

size_t SortMemory::available() const {
  std::lock_guard<std::mutex> lock(mu_);
  return taken_ < budget_ ? budget_ - taken_ : 0;
}

size_t SortMemory::taken() const {
  std::lock_guard<std::mutex> lock(mu_);
  return taken_;
}

size_t SortMemory::kept() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kept_.size();
}

void SortMemory::DropKeptToFit(size_t bytes) {
  if (kept_.size() > 0 && (taken_ > budget_ || bytes + kept_.size() > budget_ - taken_)) {
    kept_.Unmap();
  }
}

bool SortMemory::Take(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (taken_ > budget_ || bytes > budget_ - taken_) return false;
  DropKeptToFit(bytes);
  taken_ += bytes;
  return true;
}

void SortMemory::Force(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  DropKeptToFit(bytes);
  taken_ += bytes;
}

void SortMemory::Give(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  assert(bytes <= taken_);
  taken_ -= bytes;
}

void SortMemory::Keep(MappedMemory m) {
  std::lock_guard<std::mutex> lock(mu_);
  if (m.size() <= kept_.size()) return;  // m is unmapped on return
  kept_.Unmap();
  if (taken_ <= budget_ && m.size() <= budget_ - taken_) kept_ = std::move(m);
}

MappedMemory SortMemory::TakeKept() {
  std::lock_guard<std::mutex> lock(mu_);
  taken_ += kept_.size();
  return std::move(kept_);
}

}  // namespace webdb
