// The fixed parts of a table file (docs/FORMAT.md, "Table files"): block trailers, index
// entries and the footer, with their encoders and checked decoders. Shared by TableBuilder
// (writes) and Table (reads). Pure functions and plain values; thread-safe.
#ifndef WEBDB_TABLE_FORMAT_H_
#define WEBDB_TABLE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "nutchfs/status.h"

namespace webdb {

using nutchfs::Result;
using nutchfs::Status;

constexpr size_t kTargetBlockSize = 32 * 1024;
constexpr size_t kBlockTrailerSize = 5;  // type byte + fixed32 masked crc
constexpr uint8_t kBlockTypeNone = 0;
constexpr size_t kFooterSize = 48;
constexpr uint32_t kTableFormatVersion = 1;
constexpr uint64_t kTableMagic = 0x574542445441424cull;  // "WEBDTABL"

// Where a block lives: its file offset and its size without the trailer.
struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t end() const { return offset + size + kBlockTrailerSize; }  // past the trailer
};

struct Footer {
  BlockHandle index;
  uint64_t num_records = 0;
  uint64_t num_blocks = 0;
};

// Appends the trailer (type none, masked CRC32C of block + type) for the block bytes.
void AppendBlockTrailer(std::string_view block, std::string* dst);

// Checks the trailer that follows block (block_with_trailer = block bytes + trailer) and
// returns the block bytes. Corruption "<path>: ... at offset <offset>" on a bad type or crc.
Result<std::string_view> CheckBlockTrailer(std::string_view block_with_trailer,
                                           const std::string& path, uint64_t offset);

void EncodeFooter(const Footer& footer, std::string* dst);
// REQUIRES: input.size() == kFooterSize. offset is the footer's file offset (for errors).
Result<Footer> DecodeFooter(std::string_view input, const std::string& path, uint64_t offset);

// One index entry: last key of a data block and the block's handle.
void AppendIndexEntry(std::string_view last_key, const BlockHandle& handle, std::string* dst);
// Consumes one entry from the front of *input; false when malformed.
bool GetIndexEntry(std::string_view* input, std::string_view* last_key, BlockHandle* handle);

}  // namespace webdb

#endif  // WEBDB_TABLE_FORMAT_H_
