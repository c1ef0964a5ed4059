#include "webdb/table/block_builder.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>

#include "webdb/table/block.h"
#include "webdb/table/table_format.h"
#include "webdb/util/coding.h"

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

// A block rarely grows past its target plus one record: grow in large steps.
void BlockBuilder::Grow(size_t n) {
  buffer_.set_size(size_);
  buffer_.Reserve(std::max({size_ + n, 2 * buffer_.capacity(), target_size_ + 1024}));
}

bool BlockBuilder::Add(std::string_view key, std::string_view value) {
  assert(!finished_);
  size_t shared = 0;
  if (!empty()) {
    // key > last_key_ unless key ends within the shared prefix or is smaller just after it.
    shared = SharedPrefixLength(last_key_.view(), key);
    if (shared == key.size() ||
        (shared < last_key_.size() &&
         static_cast<uint8_t>(key[shared]) < static_cast<uint8_t>(last_key_[shared]))) {
      return false;
    }
  }
  const size_t unshared = key.size() - shared;
  char* p = Room(3 * 5 + unshared + value.size());
  if ((shared | unshared | value.size()) < 0x80) {  // three one-byte lengths, as mostly
    p[0] = static_cast<char>(shared);
    p[1] = static_cast<char>(unshared);
    p[2] = static_cast<char>(value.size());
    p += 3;
  } else {
    p = EncodeVarint32(p, static_cast<uint32_t>(shared));
    p = EncodeVarint32(p, static_cast<uint32_t>(unshared));
    p = EncodeVarint32(p, static_cast<uint32_t>(value.size()));
  }
  CopyBytes(p, key.data() + shared, unshared);
  p += unshared;
  CopyBytes(p, value.data(), value.size());
  p += value.size();
  size_ = static_cast<size_t>(p - buffer_.data());
  last_key_.Set(shared, key.substr(shared));
  return true;
}

// Each record's key is compared with the limit through the prefix it shares with the
// key before it: that key, below the limit, shares m bytes with it. A record sharing
// fewer than m bytes has a greater byte where the one before it had the limit's: it is
// above the limit. One sharing more differs from the limit where the one before did: it
// is below. Only one sharing exactly m bytes is compared, by its new bytes.
size_t BlockBuilder::AddStored(std::string_view records, size_t target,
                               std::optional<std::string_view> limit, uint64_t* added,
                               const char** error, bool* at_limit) {
  assert(!empty() && !finished_);
  const char* const begin = records.data();
  const char* const end = begin + records.size();
  const char* p = begin;
  RecordHeader r;
  *added = 0;
  *error = nullptr;
  *at_limit = false;
  size_t m = 0;
  if (limit) {
    m = SharedPrefixLength(last_key_.view(), *limit);
    *at_limit = last_key_.view() >= *limit;
  }
  while (p < end && !*at_limit) {
    if (!ParseRecordAfter(last_key_, p, end, &r, error)) break;
    if (limit && r.shared <= m) {
      const std::string_view rest = limit->substr(m);
      const size_t c =
          r.shared < m ? 0 : SharedPrefixLength(std::string_view(r.delta, r.unshared), rest);
      *at_limit = r.shared < m || c == rest.size() ||
                  (c < r.unshared &&
                   static_cast<uint8_t>(r.delta[c]) > static_cast<uint8_t>(rest[c]));
      if (*at_limit) break;
      m += c;
    }
    const size_t appended = static_cast<size_t>(p - begin);
    if (SizeWith(r.shared + r.unshared, r.value_size) + appended > target) break;
    last_key_.Set(r.shared, std::string_view(r.delta, r.unshared));
    p = r.end;
    ++*added;
  }
  const size_t n = static_cast<size_t>(p - begin);
  if (n > 0) std::memcpy(Room(n), begin, n);
  size_ += n;
  return n;
}

std::string_view BlockBuilder::Finish() {
  assert(!empty() && !finished_);
  std::string trailer;
  AppendBlockTrailer(std::string_view(buffer_.data(), size_), &trailer);
  std::memcpy(Room(trailer.size()), trailer.data(), trailer.size());
  finished_ = true;
  return std::string_view(buffer_.data(), size_ + kBlockTrailerSize);
}

nutchfs::OwnedBytes* BlockBuilder::finished_buffer() {
  assert(finished_);
  buffer_.set_size(size_ + kBlockTrailerSize);
  return &buffer_;
}

void BlockBuilder::Reset() {
  size_ = 0;
  last_key_.Clear();
  finished_ = false;
}

size_t BlockBuilder::SizeWith(size_t key_size, size_t value_size) const {
  return size_ + 3 * 5 + key_size + value_size;
}

}  // namespace webdb
