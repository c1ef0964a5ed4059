#include "webdb/table/table_format.h"

#include "webdb/util/coding.h"
#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

std::string At(uint64_t offset) { return " at offset " + std::to_string(offset); }

}  // namespace

void AppendBlockTrailer(std::string_view block, std::string* dst) {
  AppendBlockTrailerWithCrc(crc32c::Value(block), dst);
}

void AppendBlockTrailerWithCrc(uint32_t contents_crc, std::string* dst) {
  const char type = static_cast<char>(kBlockTypeNone);
  uint32_t crc = crc32c::Extend(contents_crc, &type, 1);
  dst->push_back(type);
  PutFixed32(dst, crc32c::Mask(crc));
}

Result<std::string_view> CheckBlockTrailer(std::string_view block_with_trailer,
                                           const std::string& path, uint64_t offset) {
  if (block_with_trailer.size() < kBlockTrailerSize) {
    return nutchfs::Err(Status::Corruption(path + ": block too short" + At(offset)));
  }
  size_t n = block_with_trailer.size() - kBlockTrailerSize;
  const char* trailer = block_with_trailer.data() + n;
  if (static_cast<uint8_t>(trailer[0]) != kBlockTypeNone) {
    return nutchfs::Err(Status::Corruption(path + ": unknown block type " +
                                           std::to_string(static_cast<uint8_t>(trailer[0])) +
                                           " in block" + At(offset)));
  }
  uint32_t actual = crc32c::Value(block_with_trailer.data(), n + 1);
  if (crc32c::Unmask(DecodeFixed32(trailer + 1)) != actual) {
    return nutchfs::Err(Status::Corruption(path + ": block checksum mismatch" + At(offset)));
  }
  return block_with_trailer.substr(0, n);
}

void EncodeFooter(const Footer& footer, std::string* dst) {
  std::string buf;
  PutFixed64(&buf, footer.index.offset);
  PutFixed64(&buf, footer.index.size);
  PutFixed64(&buf, footer.num_records);
  PutFixed64(&buf, footer.num_blocks);
  PutFixed64(&buf, footer.file_id);
  PutFixed32(&buf, kTableFormatVersion);
  PutFixed32(&buf, crc32c::Mask(crc32c::Value(buf)));
  PutFixed64(&buf, kTableMagic);
  dst->append(buf);
}

Result<Footer> DecodeFooter(std::string_view tail, const std::string& path, uint64_t tail_offset) {
  auto bad = [&](const std::string& what, size_t at) {
    return nutchfs::Err(Status::Corruption(path + ": " + what + At(tail_offset + at)));
  };
  // Both versions end with version, crc and magic.
  if (tail.size() < kFooterSizeV1) return bad("file too short for a table footer", 0);
  const size_t end = tail.size();
  if (DecodeFixed64(tail.data() + end - 8) != kTableMagic) {
    return bad("bad table magic in footer", end - 8);
  }
  Footer f;
  f.version = DecodeFixed32(tail.data() + end - 16);
  if (f.version != 1 && f.version != kTableFormatVersion) {
    return bad("unsupported table format version " + std::to_string(f.version), end - 16);
  }
  const size_t size = f.encoded_size();
  if (size > end) return bad("file too short for a table footer", 0);
  const char* footer = tail.data() + end - size;
  const size_t crc_at = size - 12;
  if (crc32c::Unmask(DecodeFixed32(footer + crc_at)) != crc32c::Value(footer, crc_at)) {
    return bad("footer checksum mismatch", end - size);
  }
  f.index.offset = DecodeFixed64(footer);
  f.index.size = DecodeFixed64(footer + 8);
  f.num_records = DecodeFixed64(footer + 16);
  f.num_blocks = DecodeFixed64(footer + 24);
  if (f.version != 1) f.file_id = DecodeFixed64(footer + 32);
  return f;
}

void AppendIndexEntry(std::string_view last_key, const BlockHandle& handle, std::string* dst) {
  PutVarint32(dst, static_cast<uint32_t>(last_key.size()));
  dst->append(last_key);
  PutVarint64(dst, handle.offset);
  PutVarint64(dst, handle.size);
}

bool GetIndexEntry(std::string_view* input, std::string_view* last_key, BlockHandle* handle) {
  return GetLengthPrefixed(input, last_key) && GetVarint64(input, &handle->offset) &&
         GetVarint64(input, &handle->size);
}

}  // namespace webdb
