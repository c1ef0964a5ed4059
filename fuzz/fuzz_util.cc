#include "fuzz/fuzz_util.h"

#include <zlib.h>

#include <cstdio>
#include <cstdlib>

#include "nutchfs/mem_env.h"
#include "webdb/table/table_format.h"
#include "webdb/util/coding.h"
#include "webdb/util/crc32c.h"

namespace fuzzutil {
namespace {

using webdb::crc32c::Mask;

void PutFixed32At(std::string* s, size_t at, uint32_t v) {
  std::string bytes;
  webdb::PutFixed32(&bytes, v);
  s->replace(at, 4, bytes);
}

// Rewrites the trailer crc of the block at handle if block and trailer lie inside file.
bool RepairTrailer(std::string* file, const webdb::BlockHandle& h) {
  if (h.offset > file->size() || h.size > file->size() - h.offset ||
      file->size() - h.offset - h.size < webdb::kBlockTrailerSize) {
    return false;
  }
  // The crc covers the block bytes and the type byte after them.
  uint32_t crc = webdb::crc32c::Value(file->data() + h.offset, h.size + 1);
  PutFixed32At(file, h.offset + h.size + 1, Mask(crc));
  return true;
}

}  // namespace

void CheckFailed(const char* file, int line, const char* cond, std::string_view msg) {
  std::fprintf(stderr, "%s:%d: fuzz property failed: %s\n", file, line, cond);
  if (!msg.empty()) std::fprintf(stderr, "  %.*s\n", static_cast<int>(msg.size()), msg.data());
  std::abort();
}

std::unique_ptr<nutchfs::Env> EnvWithFile(const std::string& path, std::string_view bytes) {
  auto env = nutchfs::NewMemEnv();
  const std::string dir = path.substr(0, path.rfind('/'));
  if (!dir.empty() && !env->CreateDirs(dir).ok()) CheckFailed(__FILE__, __LINE__, "mkdir", path);
  auto file = env->NewWritableFile(path);
  if (!file || !(*file)->Append(bytes).ok() || !(*file)->Close().ok()) {
    CheckFailed(__FILE__, __LINE__, "write to MemEnv", path);
  }
  return env;
}

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t j = 1; j < n; ++j) {
      if ((static_cast<unsigned char>(s[i + j]) & 0xc0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

std::vector<std::string_view> SplitAtNul(std::string_view input, size_t n) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < n) {
    size_t nul = input.find('\0');
    if (nul == std::string_view::npos) break;
    parts.push_back(input.substr(0, nul));
    input.remove_prefix(nul + 1);
  }
  parts.push_back(input);
  parts.resize(n);
  return parts;
}

std::string Compress(std::string_view data, int window_bits) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    CheckFailed(__FILE__, __LINE__, "deflateInit2", "");
  }
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) CheckFailed(__FILE__, __LINE__, "deflate", "");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void RepairTextCrc(std::string* text) {
  const size_t at = text->rfind("crc ");
  if (at == std::string::npos) return;
  char hex[16];
  std::snprintf(hex, sizeof(hex), "%08x\n", webdb::crc32c::Value(text->data(), at));
  text->replace(at + 4, std::string::npos, hex);
}

void RepairTableChecksums(std::string* file) {
  if (file->size() < webdb::kFooterSize) return;
  const size_t footer = file->size() - webdb::kFooterSize;
  PutFixed32At(file, footer + 36, Mask(webdb::crc32c::Value(file->data() + footer, 36)));
  webdb::BlockHandle index{webdb::DecodeFixed64(file->data() + footer),
                           webdb::DecodeFixed64(file->data() + footer + 8)};
  if (!RepairTrailer(file, index)) return;
  std::string_view entries(file->data() + index.offset, index.size);
  std::vector<webdb::BlockHandle> blocks;
  std::string_view last_key;
  webdb::BlockHandle h;
  while (!entries.empty() && webdb::GetIndexEntry(&entries, &last_key, &h)) blocks.push_back(h);
  // Data blocks lie before the index, so their repair leaves the index crc valid.
  for (const webdb::BlockHandle& b : blocks) RepairTrailer(file, b);
}

void RepairEditFileChecksums(std::string* file) {
  constexpr size_t kHeader = 16, kFooter = 28;
  if (file->size() < kHeader) return;
  uint32_t file_crc = webdb::crc32c::Value(file->data(), kHeader);
  uint64_t payload_bytes = 0;
  size_t pos = kHeader;
  while (pos + 4 <= file->size()) {
    const uint32_t length = webdb::DecodeFixed32(file->data() + pos);
    if (length == 0xFFFFFFFFu) {
      if (file->size() - pos - 4 < kFooter) return;
      std::string fields;
      webdb::PutFixed64(&fields, payload_bytes);
      webdb::PutFixed32(&fields, Mask(file_crc));
      file->replace(pos + 4 + 8, fields.size(), fields);
      return;
    }
    if (pos + 8 > file->size() || file->size() - pos - 8 < length) return;
    const uint32_t crc = Mask(webdb::crc32c::Value(file->data() + pos + 8, length));
    PutFixed32At(file, pos + 4, crc);
    file_crc = webdb::crc32c::Extend(file_crc, file->data() + pos + 4, 4);
    payload_bytes += length;
    pos += 8 + size_t{length};
  }
}

}  // namespace fuzzutil
