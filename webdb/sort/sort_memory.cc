#include "webdb/sort/sort_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>
#include <new>
#include <utility>

namespace webdb {
namespace {

// MADV_COLLAPSE (Linux 6.1, <asm-generic/mman-common.h>), which glibc 2.36's
// <sys/mman.h> does not define yet.
constexpr int kMadvCollapse = 25;

}  // namespace

MappedMemory::MappedMemory(MappedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      huge_pages_(std::exchange(other.huge_pages_, false)) {}

MappedMemory& MappedMemory::operator=(MappedMemory&& other) noexcept {
  if (this != &other) {
    Unmap();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    huge_pages_ = std::exchange(other.huge_pages_, false);
  }
  return *this;
}

void MappedMemory::Map(size_t bytes) {
  Unmap();
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<char*>(p);
  bytes_ = bytes;
  huge_pages_ = false;
}

void MappedMemory::UseHugePages() {
  if (data_ == nullptr || huge_pages_) return;
  // Both are advice: a kernel without MADV_COLLAPSE (before 6.1) or without huge pages
  // refuses, and the mapping stays as it is. A collapse fills in the rest of each huge
  // page that has bytes in use but leaves untouched ones unmapped (a fresh mapping
  // gets the advice alone), so a buffer's resident memory grows by at most a huge page
  // at either end of what it uses.
  static_cast<void>(::madvise(data_, bytes_, MADV_HUGEPAGE));
  static_cast<void>(::madvise(data_, bytes_, kMadvCollapse));
  huge_pages_ = true;
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
  huge_pages_ = false;
}

BorrowedMemory::BorrowedMemory(BorrowedMemory&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)), memory_(std::move(other.memory_)) {}

BorrowedMemory& BorrowedMemory::operator=(BorrowedMemory&& other) noexcept {
  if (this != &other) {
    Return();
    pool_ = std::exchange(other.pool_, nullptr);
    memory_ = std::move(other.memory_);
  }
  return *this;
}

void BorrowedMemory::Return() {
  if (pool_ == nullptr) return;
  pool_->Give(memory_.size());
  pool_->Keep(std::move(memory_));
  pool_ = nullptr;
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
  return kept_bytes_;
}

void SortMemory::DropKeptToFit(size_t bytes) {
  while (!kept_.empty() && (taken_ > budget_ || bytes + kept_bytes_ > budget_ - taken_)) {
    kept_bytes_ -= kept_.front().size();
    kept_.erase(kept_.begin());  // unmapped
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
  const size_t size = m.size();
  if (size == 0 || taken_ > budget_ || size > budget_ - taken_) return;  // m is unmapped
  auto at = std::find_if(kept_.begin(), kept_.end(),
                         [size](const MappedMemory& k) { return k.size() >= size; });
  kept_.insert(at, std::move(m));
  kept_bytes_ += size;
  DropKeptToFit(0);
}

SortMemory::Mapping SortMemory::Acquire(size_t bytes) {
  Mapping m;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!kept_.empty()) {
      auto at = std::find_if(kept_.begin(), kept_.end(),
                             [bytes](const MappedMemory& k) { return k.size() >= bytes; });
      if (at == kept_.end()) --at;
      m.memory = std::move(*at);
      kept_.erase(at);
      kept_bytes_ -= m.memory.size();
      taken_ += m.memory.size();
      m.taken = m.memory.size();
    }
  }
  if (m.memory.size() >= bytes || (m.taken > 0 && m.memory.Remap(bytes))) return m;
  Give(m.taken);
  m.taken = 0;
  m.memory.Map(bytes);
  return m;
}

BorrowedMemory SortMemory::Borrow(size_t bytes) {
  if (bytes == 0) return BorrowedMemory();
  Mapping m = Acquire(bytes);
  if (m.memory.size() > bytes && m.memory.Remap(bytes)) {  // only a kept one is larger
    Give(m.taken - bytes);
    m.taken = bytes;
  }
  Force(m.memory.size() - m.taken);
  return BorrowedMemory(this, std::move(m.memory));
}

}  // namespace webdb
