// Byte-level encoding: little-endian fixed-width integers, varints, and big-endian
// integers (for keys whose byte order must equal numeric order). Pure functions.
#ifndef WEBDB_CODING_H_
#define WEBDB_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

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

// The length of the longest common prefix of a and b (eight bytes a step: sorted keys
// share long prefixes).
size_t SharedPrefixLength(std::string_view a, std::string_view b);

}  // namespace webdb

#endif  // WEBDB_CODING_H_
