// CRC32C (Castagnoli). Extend is ISA-L's crc32_iscsi (Debian's libisal), which picks
// the fastest kernel the CPU has at run time (carry-less multiplication folding with
// AVX-512 where present, 20+ GB/s on table blocks; a table-driven one anywhere).
// Stored checksums are masked (as in LevelDB) so that a CRC over data that itself
// contains CRCs stays strong. Pure functions, thread-safe.
#ifndef WEBDB_CRC32C_H_
#define WEBDB_CRC32C_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace webdb::crc32c {

// The CRC32C of concat(A, data) where crc is the CRC32C of A.
uint32_t Extend(uint32_t crc, const char* data, size_t n);
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }
inline uint32_t Value(std::string_view data) { return Value(data.data(), data.size()); }
// The CRC32C of concat(A, B) from crc_a, the CRC32C of A, and crc_b, that of B, which
// is len_b bytes long, without reading either: O(log len_b) table steps.
uint32_t Combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace webdb::crc32c

#endif  // WEBDB_CRC32C_H_
