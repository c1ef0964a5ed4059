#include "webdb/crc32c.h"

#include <array>
#include <cstring>

namespace webdb::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82f63b78u;  // reflected Castagnoli polynomial

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kTable = MakeTable();

// Combine shifts a CRC through runs of zero bytes. On the raw (uninverted) state, CRC is
// linear: the state after a piece B, started from state c, is Shift(c, |B|) ^ crc(0, B),
// where Shift(c, n) runs c through n zero bytes, a linear map of 32 bits applied with
// four 256-entry tables.
struct ShiftTable {
  uint32_t t[4][256];
};

inline uint32_t Shift(const ShiftTable& s, uint32_t c) {
  return s.t[0][c & 0xff] ^ s.t[1][(c >> 8) & 0xff] ^ s.t[2][(c >> 16) & 0xff] ^ s.t[3][c >> 24];
}

// The table of the linear map whose value at bit b is basis[b].
ShiftTable TableOf(const uint32_t basis[32]) {
  ShiftTable s{};
  for (int k = 0; k < 4; ++k) {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t v = 0;
      for (int j = 0; j < 8; ++j) {
        if ((i >> j) & 1) v ^= basis[8 * k + j];
      }
      s.t[k][i] = v;
    }
  }
  return s;
}

uint32_t ExtendPortable(uint32_t crc, const char* data, size_t n) {
  const auto* p = reinterpret_cast<const uint8_t*>(data);
  uint32_t c = ~crc;
  for (size_t i = 0; i < n; ++i) c = kTable[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__)
// The crc32 instruction takes 3 cycles but can start one every cycle, so three streams
// over adjacent pieces of the data run at once; their CRCs are then combined with a
// Shift table for the piece length.

__attribute__((target("sse4.2"))) uint32_t Zeros(uint32_t crc, size_t n) {
  uint64_t c = crc;
  for (; n >= 8; n -= 8) c = __builtin_ia32_crc32di(c, 0);
  auto c32 = static_cast<uint32_t>(c);
  for (; n > 0; --n) c32 = __builtin_ia32_crc32qi(c32, 0);
  return c32;
}

ShiftTable MakeShiftTable(size_t n) {
  uint32_t basis[32];
  for (int b = 0; b < 32; ++b) basis[b] = Zeros(uint32_t{1} << b, n);
  return TableOf(basis);
}

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Consumes pieces of 3 * kPiece bytes from *data while there are that many.
template <size_t kPiece>
__attribute__((target("sse4.2"))) uint64_t ThreeWay(uint64_t c0, const char** data, size_t* n,
                                                    const ShiftTable& shift) {
  const char* p = *data;
  for (; *n >= 3 * kPiece; *n -= 3 * kPiece, p += 3 * kPiece) {
    uint64_t c1 = 0, c2 = 0;
    for (size_t i = 0; i < kPiece; i += 8) {
      c0 = __builtin_ia32_crc32di(c0, Load64(p + i));
      c1 = __builtin_ia32_crc32di(c1, Load64(p + kPiece + i));
      c2 = __builtin_ia32_crc32di(c2, Load64(p + 2 * kPiece + i));
    }
    c0 = Shift(shift, static_cast<uint32_t>(c0)) ^ c1;
    c0 = Shift(shift, static_cast<uint32_t>(c0)) ^ c2;
  }
  *data = p;
  return c0;
}

constexpr size_t kLongPiece = 4096;
constexpr size_t kShortPiece = 256;

__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t crc, const char* data,
                                                        size_t n) {
  static const ShiftTable kLong = MakeShiftTable(kLongPiece);
  static const ShiftTable kShort = MakeShiftTable(kShortPiece);
  uint64_t c = ~crc;
  c = ThreeWay<kLongPiece>(c, &data, &n, kLong);
  c = ThreeWay<kShortPiece>(c, &data, &n, kShort);
  for (; n >= 8; n -= 8, data += 8) c = __builtin_ia32_crc32di(c, Load64(data));
  auto c32 = static_cast<uint32_t>(c);
  for (; n > 0; --n, ++data) c32 = __builtin_ia32_crc32qi(c32, static_cast<uint8_t>(*data));
  return ~c32;
}

bool HaveSse42() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

uint32_t Extend(uint32_t crc, const char* data, size_t n) {
#if defined(__x86_64__)
  if (HaveSse42()) return ExtendSse42(crc, data, n);
#endif
  return ExtendPortable(crc, data, n);
}

uint32_t Combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  // kPowers[k] shifts through 2^k zero bytes: the first through one byte, each next the
  // one before applied twice.
  static const auto* const kPowers = [] {
    auto* powers = new std::array<ShiftTable, 64>;
    uint32_t basis[32];
    for (int b = 0; b < 32; ++b) {
      const uint32_t c = uint32_t{1} << b;
      basis[b] = kTable[c & 0xff] ^ (c >> 8);  // one zero byte through the raw state
    }
    (*powers)[0] = TableOf(basis);
    for (size_t k = 1; k < powers->size(); ++k) {
      for (int b = 0; b < 32; ++b) {
        basis[b] = Shift((*powers)[k - 1], Shift((*powers)[k - 1], uint32_t{1} << b));
      }
      (*powers)[k] = TableOf(basis);
    }
    return powers;
  }();
  // crc(AB) = ~(Shift(~crc_a, n) ^ crc(0, B)) and crc(0, B) = ~crc_b ^ Shift(~0, n);
  // Shift is linear, so the two inversions cancel: crc(AB) = Shift(crc_a, n) ^ crc_b.
  uint32_t c = crc_a;
  for (size_t k = 0; len_b != 0; ++k, len_b >>= 1) {
    if (len_b & 1) c = Shift((*kPowers)[k], c);
  }
  return c ^ crc_b;
}

}  // namespace webdb::crc32c
