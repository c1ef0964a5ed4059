// Byte-level corruption of files on the local file system, for tests that check that
// damaged files are reported as Corruption rather than crashing or returning wrong data.
// Both helpers fail the running Catch2 test when the file cannot be changed.
// Stateless; safe to call from any thread on distinct files.
#ifndef TEST_UTIL_CORRUPT_H_
#define TEST_UTIL_CORRUPT_H_

#include <cstdint>
#include <string>

namespace testutil {

// Inverts every bit of the byte at offset. REQUIRES: offset < file size.
void FlipByte(const std::string& path, uint64_t offset);

// Cuts the file to size bytes. REQUIRES: size <= file size.
void TruncateFile(const std::string& path, uint64_t size);

}  // namespace testutil

#endif  // TEST_UTIL_CORRUPT_H_
