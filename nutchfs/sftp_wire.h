// The SFTP version 3 wire format (draft-ietf-secsh-filexfer-02) as SftpChannel speaks
// it: every packet is uint32 length, byte type, then a uint32 id (or version) and
// fields; integers big-endian, strings as uint32 length + bytes. Request encoders and
// reply decoders live here, apart from the channel, so that the decoding of what a
// server sends is tested and fuzzed without a connection (fuzz/sftp_reply_fuzz.cc).
// Decoders never read past the bytes they are given; a malformed reply is nullopt.
//
// Pure functions and plain values; thread-safe.
#ifndef NUTCHFS_SFTP_WIRE_H_
#define NUTCHFS_SFTP_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nutchfs {

inline constexpr uint8_t kFxpInit = 1;
inline constexpr uint8_t kFxpVersion = 2;
inline constexpr uint8_t kFxpOpen = 3;
inline constexpr uint8_t kFxpClose = 4;
inline constexpr uint8_t kFxpRead = 5;
inline constexpr uint8_t kFxpWrite = 6;
inline constexpr uint8_t kFxpFstat = 8;
inline constexpr uint8_t kFxpExtended = 200;
inline constexpr uint8_t kFxpStatus = 101;
inline constexpr uint8_t kFxpHandle = 102;
inline constexpr uint8_t kFxpData = 103;
inline constexpr uint8_t kFxpAttrs = 105;

inline constexpr uint32_t kFxOk = 0;
inline constexpr uint32_t kFxEof = 1;
inline constexpr uint32_t kFxNoSuchFile = 2;

// The length, type and id that start every reply (9 bytes).
inline constexpr size_t kSftpReplyHeaderSize = 9;

// What identifies a version of a file well enough to notice it was replaced.
struct SftpFileStat {
  uint64_t size = 0;
  uint32_t mtime = 0;  // seconds; 0 if the server did not say

  bool operator==(const SftpFileStat&) const = default;
};

struct SftpReplyHeader {
  uint32_t length = 0;  // of type, id and fields
  uint8_t type = 0;
  uint32_t id = 0;
};

struct SftpStatusReply {
  uint32_t code = 0;
  std::string message;
};

uint32_t DecodeSftpU32(const char* p);
void PutSftpU32(std::string* out, uint32_t v);
void PutSftpU64(std::string* out, uint64_t v);
void PutSftpString(std::string* out, std::string_view s);

// Starts a packet in out: room for the length, the type and the id (or version).
void BeginSftpPacket(std::string* out, uint8_t type, uint32_t id);
// Fills in the length of a packet started by BeginSftpPacket; returns the packet.
std::string_view EndSftpPacket(std::string* out);

// REQUIRES: head holds kSftpReplyHeaderSize bytes.
SftpReplyHeader DecodeSftpReplyHeader(const char* head);

// The payloads below are the bytes after the id (after the type for VERSION).
// VERSION: the version and the names of the server's extensions.
struct SftpVersionReply {
  uint32_t version = 0;
  std::vector<std::string> extensions;
};
std::optional<SftpVersionReply> DecodeSftpVersion(std::string_view payload);
std::optional<SftpStatusReply> DecodeSftpStatus(std::string_view payload);
std::optional<std::string> DecodeSftpHandle(std::string_view payload);
// ATTRS: nullopt also when the server sent no size.
std::optional<SftpFileStat> DecodeSftpAttrs(std::string_view payload);

}  // namespace nutchfs

#endif  // NUTCHFS_SFTP_WIRE_H_
