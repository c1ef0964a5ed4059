#include "webdb/block_builder.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>

#include "webdb/coding.h"
#include "webdb/table_format.h"

namespace webdb {
namespace {

char* EncodeVarint32(char* p, uint32_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

}  // namespace

void BlockBuilder::Add(std::string_view key, std::string_view value) {
  assert(!finished_);
  assert(buffer_.empty() || key > std::string_view(last_key_));
  size_t shared = buffer_.empty() ? 0 : SharedPrefixLength(last_key_, key);
  size_t unshared = key.size() - shared;
  char header[15];
  char* end = EncodeVarint32(header, static_cast<uint32_t>(shared));
  end = EncodeVarint32(end, static_cast<uint32_t>(unshared));
  end = EncodeVarint32(end, static_cast<uint32_t>(value.size()));
  buffer_.append(header, static_cast<size_t>(end - header));
  buffer_.append(key.data() + shared, unshared);
  buffer_.append(value);
  last_key_.replace(shared, std::string::npos, key.data() + shared, unshared);
}

std::string_view BlockBuilder::Finish() {
  assert(!buffer_.empty() && !finished_);
  size_t n = buffer_.size();
  std::string trailer;
  AppendBlockTrailer(buffer_, &trailer);
  buffer_.append(trailer);
  finished_ = true;
  return std::string_view(buffer_.data(), n + kBlockTrailerSize);
}

void BlockBuilder::Reset() {
  buffer_.clear();
  buffer_.reserve(kTargetBlockSize + kBlockTrailerSize + 64);  // a block rarely grows past
  last_key_.clear();
  finished_ = false;
}

size_t BlockBuilder::SizeWith(size_t key_size, size_t value_size) const {
  return buffer_.size() + 3 * 5 + key_size + value_size;
}

}  // namespace webdb
