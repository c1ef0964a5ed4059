// A set of urls kept as 64-bit keys (the first 8 bytes of each url's MD5) in one open
// addressing table: 16 bytes a url at most, where a node-based set would take 40. It
// remembers which urls of a WARC update were already answered by a record. Two urls
// whose keys collide are taken for one (for n urls, about n^2 / 2^65: 3e-6 for ten
// million); the caller says what that costs.
//
// Not thread-safe.
#ifndef CRAWL_URL_KEY_SET_H_
#define CRAWL_URL_KEY_SET_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace crawl {

class UrlKeySet {
 public:
  // Adds url; false if it (or a url with the same key) was there already.
  bool Insert(std::string_view url);
  bool Contains(std::string_view url) const;
  size_t size() const { return size_; }

 private:
  static uint64_t KeyOf(std::string_view url);
  // The slot holding key, or the empty slot where it would go. REQUIRES: slots_ not empty.
  size_t Find(uint64_t key) const;
  void Grow();

  std::vector<uint64_t> slots_;  // 0 = empty; a size of a power of two
  size_t size_ = 0;
};

}  // namespace crawl

#endif  // CRAWL_URL_KEY_SET_H_
