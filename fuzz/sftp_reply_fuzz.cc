// Fuzzes the decoding of SFTP replies (nutchfs/sftp_wire.h), the one part of the SFTP
// protocol decoded by this project rather than libssh: the bytes are one reply payload,
// decoded as each kind of reply; the first 9 bytes are also read as a reply header.
// Properties: no crash and no read past the payload; a decoded reply encoded again
// decodes to the same reply; a packet's header gives back its length, type and id.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "nutchfs/sftp_wire.h"

using namespace nutchfs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view payload = fuzzutil::AsView(data, size);
  // The decoders get a copy of exactly the payload, so ASan sees any read past it.
  const std::string copy(payload);

  if (auto version = DecodeSftpVersion(copy)) {
    std::string again;
    PutSftpU32(&again, version->version);
    for (const std::string& e : version->extensions) {
      PutSftpString(&again, e);
      PutSftpString(&again, "1");
    }
    auto decoded = DecodeSftpVersion(again);
    FUZZ_CHECK(decoded && decoded->version == version->version &&
               decoded->extensions == version->extensions);
  }
  if (auto status = DecodeSftpStatus(copy)) {
    FUZZ_CHECK(status->message.size() <= size);
    std::string again;
    PutSftpU32(&again, status->code);
    PutSftpString(&again, status->message);
    PutSftpString(&again, "en");
    auto decoded = DecodeSftpStatus(again);
    FUZZ_CHECK(decoded && decoded->code == status->code && decoded->message == status->message);
  }
  if (auto handle = DecodeSftpHandle(copy)) {
    std::string again;
    PutSftpString(&again, *handle);
    FUZZ_CHECK(DecodeSftpHandle(again) == handle);
  }
  if (auto stat = DecodeSftpAttrs(copy)) {
    std::string again;
    PutSftpU32(&again, 0x1 | 0x8);
    PutSftpU64(&again, stat->size);
    PutSftpU32(&again, 0);
    PutSftpU32(&again, stat->mtime);
    FUZZ_CHECK(DecodeSftpAttrs(again) == stat);
  }
  if (size >= kSftpReplyHeaderSize) {
    const SftpReplyHeader h = DecodeSftpReplyHeader(copy.data());
    std::string packet;
    BeginSftpPacket(&packet, h.type, h.id);
    PutSftpString(&packet, payload.substr(kSftpReplyHeaderSize));
    EndSftpPacket(&packet);
    const SftpReplyHeader back = DecodeSftpReplyHeader(packet.data());
    FUZZ_CHECK(back.type == h.type && back.id == h.id);
    FUZZ_CHECK(back.length == packet.size() - 4);
  }
  return 0;
}
