#include "webdb/util/crc32c.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <array>

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

}  // namespace

uint32_t Extend(uint32_t crc, const char* data, size_t n) {
  // crc32_iscsi works on the raw state (no inversions) and takes an int length.
  constexpr size_t kMaxPiece = size_t{1} << 30;
  uint32_t c = ~crc;
  for (size_t piece; n > 0; n -= piece, data += piece) {
    piece = std::min(n, kMaxPiece);
    c = crc32_iscsi(reinterpret_cast<unsigned char*>(const_cast<char*>(data)),
                    static_cast<int>(piece), c);
  }
  return ~c;
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
