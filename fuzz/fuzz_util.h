// Helpers shared by the libFuzzer targets in fuzz/ (docs/RELIABILITY.md, "Fuzzing"):
// a property check that aborts (so libFuzzer saves the input), an in-memory Env holding
// the input as a file, input splitting, and checksum repair for the binary formats, so
// that mutated inputs get past the CRCs and reach the decoders behind them.
//
// Free functions on values; one fuzzing thread.
#ifndef FUZZ_FUZZ_UTIL_H_
#define FUZZ_FUZZ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"

namespace fuzzutil {

// Aborts with a message naming the broken property unless cond holds.
#define FUZZ_CHECK(cond) ((cond) ? void(0) : ::fuzzutil::CheckFailed(__FILE__, __LINE__, #cond, ""))
#define FUZZ_CHECK_MSG(cond, msg) \
  ((cond) ? void(0) : ::fuzzutil::CheckFailed(__FILE__, __LINE__, #cond, (msg)))
[[noreturn]] void CheckFailed(const char* file, int line, const char* cond, std::string_view msg);

inline std::string_view AsView(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A fresh in-memory Env holding bytes at path (its directory created).
std::unique_ptr<nutchfs::Env> EnvWithFile(const std::string& path, std::string_view bytes);

// Whether s is UTF-8: each sequence a lead byte and its continuation bytes, written out
// here, independently of the decoders the targets check.
bool ValidUtf8(std::string_view s);

// Splits input at its first n-1 NUL bytes into n parts (missing parts are empty).
std::vector<std::string_view> SplitAtNul(std::string_view input, size_t n);

// Rewrites the value of the last "crc " line of a text manifest (webdb/db/manifest.h,
// distwriter/round_manifest.h) to the CRC32C of the text before it, if there is one.
void RepairTextCrc(std::string* text);

// data compressed by zlib: as one gzip member (window_bits 16 + 15), zlib-wrapped (15)
// or raw deflate (-15).
std::string Compress(std::string_view data, int window_bits);

// Recomputes every checksum of a table file (docs/FORMAT.md, "Table files") that can be
// located: the footer crc, the index block trailer and the trailer of each data block
// the index names. Leaves everything else, including bad offsets, as it is.
void RepairTableChecksums(std::string* file);

// Recomputes the frame crcs, payload byte count and file crc of an edit file
// (docs/FORMAT.md, "Edit files") as far as its frames can be walked.
void RepairEditFileChecksums(std::string* file);

}  // namespace fuzzutil

#endif  // FUZZ_FUZZ_UTIL_H_
