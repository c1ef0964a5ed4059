#include "webdb/table/block.h"

#include <cstring>

namespace webdb {

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
    RecordHeader r;
    const char* what;
    if (!ParseRecord(p, limit, &r, &what)) return std::nullopt;
    p = r.end;
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
  RecordHeader r;
  const char* what;
  const char* const p = data_ + pos_;
  if (started_ ? !ParseRecordAfter(key_, p, data_ + size_, &r, &what)
               : !ParseRecord(p, data_ + size_, &r, &what)) {
    return Fail(pos_, what);
  }
  if (!started_ && r.shared != 0) return Fail(pos_, "bad shared key prefix length");
  key_.Set(r.shared, std::string_view(r.delta, r.unshared));
  value_ = std::string_view(r.delta + r.unshared, r.value_size);
  pos_ = static_cast<size_t>(r.end - data_);
  started_ = true;
  return true;
}

bool BlockReader::NextAtOrAbove(std::optional<std::string_view> limit, uint64_t* passed) {
  *passed = 0;
  while (Next()) {
    if (limit && key_.view() >= *limit) return true;
    ++*passed;
  }
  return false;
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
  size_t size = key_.size();
  uint64_t count = 0;
  RecordHeader r;
  const char* what;
  while (status_.ok() && pos_ < size_) {
    if (!ParseRecord(data_ + pos_, data_ + size_, &r, &what)) {
      Fail(pos_, what);
      break;
    }
    if (r.shared < n) break;  // Next() decodes it
    if (r.shared > size || r.unshared == 0) {
      Fail(pos_, r.shared > size ? "bad shared key prefix length"
                                 : "key not greater than the previous key");
      break;
    }
    size = r.shared + r.unshared;
    pos_ = static_cast<size_t>(r.end - data_);
    ++count;
  }
  *last_size = size;
  return count;
}

bool BlockReader::Fail(size_t record_pos, std::string_view what) {
  status_ = Status::Corruption(*path_ + ": malformed record (" + std::string(what) +
                               ") at offset " + std::to_string(block_offset_ + record_pos) +
                               " in block at offset " + std::to_string(block_offset_));
  return false;
}

}  // namespace webdb
