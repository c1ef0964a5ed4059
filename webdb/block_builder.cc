#include "webdb/block_builder.h"

#include <algorithm>
#include <cassert>

#include "webdb/coding.h"
#include "webdb/table_format.h"

namespace webdb {
namespace {

size_t SharedPrefixLength(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  auto mismatch = std::mismatch(a.begin(), a.begin() + n, b.begin());
  return static_cast<size_t>(mismatch.first - a.begin());
}

}  // namespace

void BlockBuilder::Add(std::string_view key, std::string_view value) {
  assert(!finished_);
  assert(buffer_.empty() || key > std::string_view(last_key_));
  size_t shared = buffer_.empty() ? 0 : SharedPrefixLength(last_key_, key);
  size_t unshared = key.size() - shared;
  PutVarint32(&buffer_, static_cast<uint32_t>(shared));
  PutVarint32(&buffer_, static_cast<uint32_t>(unshared));
  PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
  buffer_.append(key.substr(shared));
  buffer_.append(value);
  last_key_.resize(shared);
  last_key_.append(key.substr(shared));
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
  last_key_.clear();
  finished_ = false;
}

size_t BlockBuilder::SizeWith(size_t key_size, size_t value_size) const {
  return buffer_.size() + 3 * 5 + key_size + value_size;
}

}  // namespace webdb
