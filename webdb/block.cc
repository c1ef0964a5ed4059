#include "webdb/block.h"

#include <cstring>

namespace webdb {
namespace {

// Decodes a varint32 from [p, limit); nullptr when malformed or cut off by limit.
inline const char* ParseVarint32(const char* p, const char* limit, uint32_t* value) {
  if (p < limit && (static_cast<uint8_t>(*p) & 0x80) == 0) {
    *value = static_cast<uint8_t>(*p);
    return p + 1;
  }
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && p < limit; shift += 7) {
    uint32_t byte = static_cast<uint8_t>(*p++);
    if (shift == 28 && byte > 0x0f) return nullptr;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return p;
    }
  }
  return nullptr;
}

// Whether previous[0, shared) + delta[0, unshared) is greater than previous. Writers store
// the longest shared prefix, so that is decided by the first delta byte alone.
inline bool FollowsPrevious(const PrefixKey& previous, uint32_t shared, const char* delta,
                            uint32_t unshared) {
  if (unshared == 0) return false;
  return shared == previous.size() ||
         static_cast<uint8_t>(delta[0]) > static_cast<uint8_t>(previous[shared]);
}

}  // namespace

std::optional<uint64_t> CountBlockRecords(std::string_view contents) {
  const char* p = contents.data();
  const char* limit = p + contents.size();
  uint64_t records = 0;
  while (p < limit) {
    // Most records have three one-byte lengths: one test for the three.
    if (limit - p >= 3 && ((p[0] | p[1] | p[2]) & 0x80) == 0) {
      const size_t rest = static_cast<uint8_t>(p[1]) + static_cast<size_t>(static_cast<uint8_t>(p[2]));
      if (rest > static_cast<size_t>(limit - p) - 3) return std::nullopt;
      p += 3 + rest;
      ++records;
      continue;
    }
    uint32_t shared, unshared, value_size;
    if ((p = ParseVarint32(p, limit, &shared)) == nullptr ||
        (p = ParseVarint32(p, limit, &unshared)) == nullptr ||
        (p = ParseVarint32(p, limit, &value_size)) == nullptr ||
        static_cast<uint64_t>(unshared) + value_size > static_cast<uint64_t>(limit - p)) {
      return std::nullopt;
    }
    p += unshared + value_size;
    ++records;
  }
  return records;
}

void BlockReader::Reset(std::string_view contents, const std::string* path, uint64_t block_offset) {
  data_ = contents.data();
  size_ = contents.size();
  pos_ = 0;
  path_ = path;
  block_offset_ = block_offset;
  started_ = false;
  key_.Clear();
  value_ = {};
  status_ = Status::OK();
}

bool BlockReader::Next() {
  if (!status_.ok() || pos_ >= size_) return false;
  const char* p = data_ + pos_;
  const char* limit = data_ + size_;
  uint32_t shared, unshared, value_size;
  if ((p = ParseVarint32(p, limit, &shared)) == nullptr ||
      (p = ParseVarint32(p, limit, &unshared)) == nullptr ||
      (p = ParseVarint32(p, limit, &value_size)) == nullptr) {
    return Fail(pos_, "bad record header");
  }
  if (static_cast<uint64_t>(unshared) + value_size > static_cast<uint64_t>(limit - p)) {
    return Fail(pos_, "record runs past the block end");
  }
  if (shared > key_.size() || (!started_ && shared != 0)) {
    return Fail(pos_, "bad shared key prefix length");
  }
  if (started_ && !FollowsPrevious(key_, shared, p, unshared)) {
    return Fail(pos_, "key not greater than the previous key");
  }
  key_.Set(shared, std::string_view(p, unshared));
  value_ = std::string_view(p + unshared, value_size);
  pos_ = static_cast<size_t>(p + unshared + value_size - data_);
  started_ = true;
  return true;
}

bool BlockReader::Seek(std::string_view target) {
  pos_ = 0;
  started_ = false;
  key_.Clear();
  while (Next()) {
    if (key_.view() >= target) return true;
  }
  return false;
}

uint64_t BlockReader::SkipSharing(size_t n, size_t* last_size) {
  const char* const limit = data_ + size_;
  size_t size = key_.size();
  uint64_t records = 0;
  while (status_.ok() && pos_ < size_) {
    const char* p = data_ + pos_;
    uint32_t shared, unshared, value_size;
    if ((p = ParseVarint32(p, limit, &shared)) == nullptr ||
        (p = ParseVarint32(p, limit, &unshared)) == nullptr ||
        (p = ParseVarint32(p, limit, &value_size)) == nullptr) {
      Fail(pos_, "bad record header");
      break;
    }
    if (shared < n) break;  // Next() decodes it
    if (static_cast<uint64_t>(unshared) + value_size > static_cast<uint64_t>(limit - p)) {
      Fail(pos_, "record runs past the block end");
      break;
    }
    if (shared > size || unshared == 0) {
      Fail(pos_, shared > size ? "bad shared key prefix length"
                               : "key not greater than the previous key");
      break;
    }
    size = shared + unshared;
    pos_ = static_cast<size_t>(p + unshared + value_size - data_);
    ++records;
  }
  *last_size = size;
  return records;
}

bool BlockReader::Fail(size_t record_pos, std::string_view what) {
  status_ = Status::Corruption(*path_ + ": malformed record (" + std::string(what) +
                               ") at offset " + std::to_string(block_offset_ + record_pos) +
                               " in block at offset " + std::to_string(block_offset_));
  return false;
}

}  // namespace webdb
