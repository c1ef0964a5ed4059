#include "nutchfs/sftp_wire.h"

namespace nutchfs {
namespace {

constexpr uint32_t kAttrSize = 0x1;
constexpr uint32_t kAttrUidGid = 0x2;
constexpr uint32_t kAttrPermissions = 0x4;
constexpr uint32_t kAttrTimes = 0x8;

// Reads the fields of a payload front to back; a read past the end sets ok() to false
// and yields zeros and empty strings from then on.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool empty() const { return in_.empty(); }
  uint32_t U32() {
    if (!Need(4)) return 0;
    uint32_t v = DecodeSftpU32(in_.data());
    in_.remove_prefix(4);
    return v;
  }
  uint64_t U64() {
    uint64_t hi = U32();
    return (hi << 32) | U32();
  }
  std::string_view Str() {
    uint32_t n = U32();
    if (!Need(n)) return {};
    std::string_view s = in_.substr(0, n);
    in_.remove_prefix(n);
    return s;
  }

 private:
  bool Need(size_t n) {
    if (ok_ && in_.size() >= n) return true;
    ok_ = false;
    return false;
  }
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace

uint32_t DecodeSftpU32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

void PutSftpU32(std::string* out, uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(b, 4);
}

void PutSftpU64(std::string* out, uint64_t v) {
  PutSftpU32(out, static_cast<uint32_t>(v >> 32));
  PutSftpU32(out, static_cast<uint32_t>(v));
}

void PutSftpString(std::string* out, std::string_view s) {
  PutSftpU32(out, static_cast<uint32_t>(s.size()));
  out->append(s);
}

void BeginSftpPacket(std::string* out, uint8_t type, uint32_t id) {
  out->clear();
  out->append(4, '\0');
  out->push_back(static_cast<char>(type));
  PutSftpU32(out, id);
}

std::string_view EndSftpPacket(std::string* out) {
  std::string prefix;
  PutSftpU32(&prefix, static_cast<uint32_t>(out->size() - 4));
  out->replace(0, 4, prefix);
  return *out;
}

SftpReplyHeader DecodeSftpReplyHeader(const char* head) {
  return {DecodeSftpU32(head), static_cast<uint8_t>(head[4]), DecodeSftpU32(head + 5)};
}

std::optional<SftpVersionReply> DecodeSftpVersion(std::string_view payload) {
  PayloadReader in(payload);
  SftpVersionReply reply;
  reply.version = in.U32();
  while (in.ok() && !in.empty()) {
    std::string_view name = in.Str();
    in.Str();  // the extension's version data
    if (in.ok()) reply.extensions.emplace_back(name);
  }
  if (!in.ok()) return std::nullopt;
  return reply;
}

std::optional<SftpStatusReply> DecodeSftpStatus(std::string_view payload) {
  PayloadReader in(payload);
  SftpStatusReply reply;
  reply.code = in.U32();
  reply.message.assign(in.Str());  // the language tag after it is not needed
  if (!in.ok()) return std::nullopt;
  return reply;
}

std::optional<std::string> DecodeSftpHandle(std::string_view payload) {
  PayloadReader in(payload);
  std::string handle(in.Str());
  if (!in.ok()) return std::nullopt;
  return handle;
}

std::optional<SftpFileStat> DecodeSftpAttrs(std::string_view payload) {
  PayloadReader in(payload);
  const uint32_t flags = in.U32();
  SftpFileStat stat;
  if (flags & kAttrSize) stat.size = in.U64();
  if (flags & kAttrUidGid) in.U64();
  if (flags & kAttrPermissions) in.U32();
  if (flags & kAttrTimes) {
    in.U32();  // atime
    stat.mtime = in.U32();
  }
  if (!in.ok() || (flags & kAttrSize) == 0) return std::nullopt;
  return stat;
}

}  // namespace nutchfs
