// The fixed parts of a table file (docs/FORMAT.md, "Table files"): block trailers, index
// entries and the footer, with their encoders and checked decoders. Shared by TableBuilder
// (writes) and Table (reads). Pure functions and plain values; thread-safe.
#ifndef WEBDB_TABLE_TABLE_FORMAT_H_
#define WEBDB_TABLE_TABLE_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "nutchfs/status.h"

namespace webdb {

using nutchfs::Result;
using nutchfs::Status;

// TableBuilder's default; the writers choose per table (TargetBlockSize, webdb/db/update.cc).
constexpr size_t kTargetBlockSize = 32 * 1024;
constexpr size_t kBlockTrailerSize = 5;  // type byte + fixed32 masked crc
constexpr uint8_t kBlockTypeNone = 0;
constexpr size_t kFooterSize = 56;    // format version 2, the one written
constexpr size_t kFooterSizeV1 = 48;  // format version 1: no file id
constexpr uint32_t kTableFormatVersion = 2;
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
  uint64_t file_id = 0;  // 0 in format version 1
  uint32_t version = kTableFormatVersion;
  size_t encoded_size() const { return version == 1 ? kFooterSizeV1 : kFooterSize; }
};

// The file id of a table (docs/FORMAT.md, "File id"): content_crc is the CRC32C of every
// byte before the footer, index_crc that of the index block's bytes.
inline uint64_t TableFileId(uint32_t content_crc, uint32_t index_crc) {
  return (uint64_t{content_crc} << 32) | index_crc;
}

// Appends the trailer (type none, masked CRC32C of block + type) for the block bytes.
void AppendBlockTrailer(std::string_view block, std::string* dst);
// The same for a block whose bytes have the unmasked CRC32C contents_crc.
void AppendBlockTrailerWithCrc(uint32_t contents_crc, std::string* dst);

// Checks the trailer that follows block (block_with_trailer = block bytes + trailer) and
// returns the block bytes. Corruption "<path>: ... at offset <offset>" on a bad type or crc.
Result<std::string_view> CheckBlockTrailer(std::string_view block_with_trailer,
                                           const std::string& path, uint64_t offset);

// Appends the footer in the current format version (footer.version is not used).
void EncodeFooter(const Footer& footer, std::string* dst);
// Decodes the footer of either format version from the end of tail, which holds the last
// min(file size, kFooterSize) bytes of the file, starting at file offset tail_offset.
// Corruption naming path and offset on a bad magic, version or crc, or a tail too short
// for its footer.
Result<Footer> DecodeFooter(std::string_view tail, const std::string& path, uint64_t tail_offset);

// One index entry: last key of a data block and the block's handle.
void AppendIndexEntry(std::string_view last_key, const BlockHandle& handle, std::string* dst);
// Consumes one entry from the front of *input; false when malformed.
bool GetIndexEntry(std::string_view* input, std::string_view* last_key, BlockHandle* handle);

}  // namespace webdb

#endif  // WEBDB_TABLE_TABLE_FORMAT_H_
