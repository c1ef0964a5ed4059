#include "crawl/url_key_set.h"

#include <cstring>

#include "webdb/table/record.h"

namespace crawl {

uint64_t UrlKeySet::KeyOf(std::string_view url) {
  const webdb::Md5 md5 = webdb::Md5Of(url);
  uint64_t key;
  std::memcpy(&key, md5.data(), sizeof(key));
  return key == 0 ? 1 : key;  // 0 marks an empty slot
}

size_t UrlKeySet::Find(uint64_t key) const {
  const size_t mask = slots_.size() - 1;
  // The key is an MD5 prefix: its low bits are already uniform.
  for (size_t i = key & mask;; i = (i + 1) & mask) {
    if (slots_[i] == key || slots_[i] == 0) return i;
  }
}

void UrlKeySet::Grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, 0);
  for (uint64_t key : old) {
    if (key != 0) slots_[Find(key)] = key;
  }
}

bool UrlKeySet::Insert(std::string_view url) {
  if ((size_ + 1) * 2 > slots_.size()) Grow();  // at most half full
  const uint64_t key = KeyOf(url);
  const size_t i = Find(key);
  if (slots_[i] == key) return false;
  slots_[i] = key;
  ++size_;
  return true;
}

bool UrlKeySet::Contains(std::string_view url) const {
  return !slots_.empty() && slots_[Find(KeyOf(url))] == KeyOf(url);
}

}  // namespace crawl
