// OwnedBytes: a buffer a WritableFile can take over (nutchfs/env.h, AppendBuffer).
#ifndef NUTCHFS_OWNED_BYTES_H_
#define NUTCHFS_OWNED_BYTES_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace nutchfs {

// Bytes on the heap, not zeroed, that a WritableFile can take over instead of copying
// them (AppendBuffer): a table's data block is encoded in one and handed to its file.
class OwnedBytes {
 public:
  OwnedBytes() = default;
  explicit OwnedBytes(size_t capacity) : data_(new char[capacity]), capacity_(capacity) {}
  // Moved from, a buffer is empty, of capacity 0.
  OwnedBytes(OwnedBytes&& other) noexcept
      : data_(std::move(other.data_)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  OwnedBytes& operator=(OwnedBytes&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }

  char* data() { return data_.get(); }
  std::string_view view() const { return std::string_view(data_.get(), size_); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  // REQUIRES: n <= capacity().
  void set_size(size_t n) { size_ = n; }
  // Makes the capacity at least n, keeping the bytes [0, size()).
  void Reserve(size_t n) {
    if (n <= capacity_) return;
    std::unique_ptr<char[]> grown(new char[n]);
    if (size_ > 0) std::memcpy(grown.get(), data_.get(), size_);
    data_ = std::move(grown);
    capacity_ = n;
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace nutchfs

#endif  // NUTCHFS_OWNED_BYTES_H_
