// Byte-level encoding: little-endian fixed-width integers, varints, and big-endian
// integers (for keys whose byte order must equal numeric order). Pure functions.
#ifndef WEBDB_UTIL_CODING_H_
#define WEBDB_UTIL_CODING_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace webdb {

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  dst->append(buf, 4);
}
inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  dst->append(buf, 8);
}
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}
inline void PutBigEndian64(std::string* dst, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (56 - 8 * i));
  dst->append(buf, 8);
}
inline uint64_t DecodeBigEndian64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

void PutVarint32(std::string* dst, uint32_t v);
void PutVarint64(std::string* dst, uint64_t v);
// Length-prefixed bytes: varint32 length, then the bytes.
void PutLengthPrefixed(std::string* dst, std::string_view value);
int VarintLength(uint64_t v);

// Each Get* consumes its value from the front of *input; false on malformed or short
// input (then *input is unspecified).
bool GetVarint32(std::string_view* input, uint32_t* value);
bool GetVarint64(std::string_view* input, uint64_t* value);
bool GetLengthPrefixed(std::string_view* input, std::string_view* result);
bool GetFixed32(std::string_view* input, uint32_t* value);
bool GetFixed64(std::string_view* input, uint64_t* value);
bool GetBytes(std::string_view* input, size_t n, std::string_view* result);

// The length of the longest common prefix of a and b (sixteen bytes a step with SSE2,
// which every x86-64 has, then eight: sorted keys share long prefixes). Inline: every
// record a table builder adds asks for it.
inline size_t SharedPrefixLength(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.data() + i));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.data() + i));
    const unsigned differ =
        ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y))) & 0xffff;
    if (differ != 0) return i + static_cast<size_t>(__builtin_ctz(differ));
  }
#endif
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) return i + static_cast<size_t>(__builtin_ctzll(x ^ y) / 8);
  }
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// Sixteen bytes as one vector (GCC's vector extension: SSE2 on x86-64, NEON on arm64,
// plain code elsewhere). Lane-wise operators give each lane all ones where true.
using Bytes16 = uint8_t __attribute__((vector_size(16)));

inline Bytes16 LoadBytes16(const char* p) {
  Bytes16 v;
  std::memcpy(&v, p, 16);
  return v;
}

// Whether any lane of v has a bit set.
inline bool AnyLane(Bytes16 v) {
  uint64_t w[2];
  std::memcpy(w, &v, 16);
  return (w[0] | w[1]) != 0;
}

// The first lane of marks (a lane-wise comparison's result) that is set; 16 if none.
inline size_t FirstSetLane(Bytes16 marks) {
  uint64_t w[2];
  std::memcpy(w, &marks, 16);
  if constexpr (std::endian::native == std::endian::big) {
    w[0] = __builtin_bswap64(w[0]);
    w[1] = __builtin_bswap64(w[1]);
  }
  if (w[0] != 0) return static_cast<size_t>(std::countr_zero(w[0])) / 8;
  if (w[1] != 0) return 8 + static_cast<size_t>(std::countr_zero(w[1])) / 8;
  return 16;
}

namespace coding_internal {

// Copies n bytes, sizeof(Word) <= n <= 2 * sizeof(Word), as two Words that may overlap.
template <typename Word>
inline void CopyTwoWords(char* dst, const char* src, size_t n) {
  Word first, last;
  std::memcpy(&first, src, sizeof(Word));
  std::memcpy(&last, src + n - sizeof(Word), sizeof(Word));
  std::memcpy(dst, &first, sizeof(Word));
  std::memcpy(dst + n - sizeof(Word), &last, sizeof(Word));
}

struct Bytes16 {
  uint64_t words[2];
};

}  // namespace coding_internal

// std::memcpy(dst, src, n), inline up to 32 bytes (key deltas and link values mostly
// are that short: a call to memcpy costs more than the copy). The ranges must not
// overlap; n may be 0 (then neither pointer is read, and either may be null).
inline void CopyBytes(char* dst, const char* src, size_t n) {
  using coding_internal::CopyTwoWords;
  if (n > 32) {
    std::memcpy(dst, src, n);
  } else if (n >= 16) {
    CopyTwoWords<coding_internal::Bytes16>(dst, src, n);
  } else if (n >= 8) {
    CopyTwoWords<uint64_t>(dst, src, n);
  } else if (n >= 4) {
    CopyTwoWords<uint32_t>(dst, src, n);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

// a.compare(b) (bytewise, then shorter first), deciding most pairs of md5-keyed rows
// from their first eight bytes without a call to memcmp. (Comparing on eight bytes a
// step costs more than memcmp where keys share long prefixes, as sorted urls do.)
inline int CompareKeys(std::string_view a, std::string_view b) {
  if (a.size() >= 8 && b.size() >= 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data(), 8);
    std::memcpy(&y, b.data(), 8);
    if (x != y) {
      if constexpr (std::endian::native == std::endian::little) {
        x = __builtin_bswap64(x);
        y = __builtin_bswap64(y);
      }
      return x < y ? -1 : 1;  // the first differing byte decides, as in memcmp
    }
  }
  return a.compare(b);
}

// A key stored as a prefix of the key before it plus new bytes, as data blocks store
// keys (docs/FORMAT.md, "Data blocks"). Its memory grows and is kept; new bytes are
// copied once (std::string::resize writes each new byte before the copy would).
class PrefixKey {
 public:
  std::string_view view() const { return std::string_view(data_.get(), size_); }
  size_t size() const { return size_; }
  char operator[](size_t i) const { return data_[i]; }
  void Clear() { size_ = 0; }
  // Keeps the first `shared` bytes and appends rest. REQUIRES: shared <= size().
  void Set(size_t shared, std::string_view rest) {
    const size_t size = shared + rest.size();
    if (size > capacity_) Grow(size);
    CopyBytes(data_.get() + shared, rest.data(), rest.size());
    size_ = size;
  }

 private:
  // Room for at least `size` bytes, the first size_ kept.
  void Grow(size_t size);

  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace webdb

#endif  // WEBDB_UTIL_CODING_H_
