#include "nutchfs/sftp_wire.h"

#include <catch2/catch.hpp>
#include <string>

namespace nutchfs {
namespace {

std::string U32(uint32_t v) {
  std::string s;
  PutSftpU32(&s, v);
  return s;
}

std::string Str(std::string_view v) {
  std::string s;
  PutSftpString(&s, v);
  return s;
}

}  // namespace

TEST_CASE("sftp wire: integers are big-endian, strings length-prefixed", "[nutchfs]") {
  CHECK(U32(0x01020304) == std::string("\x01\x02\x03\x04", 4));
  std::string u64;
  PutSftpU64(&u64, 0x0102030405060708ull);
  CHECK(u64 == std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  CHECK(Str("ab") == std::string("\0\0\0\2ab", 6));
  CHECK(DecodeSftpU32("\xff\x00\x00\x01") == 0xff000001u);
}

TEST_CASE("sftp wire: a packet's header gives back its length, type and id", "[nutchfs]") {
  std::string packet;
  BeginSftpPacket(&packet, kFxpOpen, 77);
  PutSftpString(&packet, "/a/b");
  const std::string_view done = EndSftpPacket(&packet);
  REQUIRE(done.size() == 4 + 1 + 4 + 8);
  const SftpReplyHeader h = DecodeSftpReplyHeader(done.data());
  CHECK(h.length == done.size() - 4);
  CHECK(h.type == kFxpOpen);
  CHECK(h.id == 77);
}

TEST_CASE("sftp wire: replies decode", "[nutchfs]") {
  auto version =
      DecodeSftpVersion(U32(3) + Str("fsync@openssh.com") + Str("1") + Str("x") + Str(""));
  REQUIRE(version);
  CHECK(version->version == 3);
  CHECK(version->extensions == std::vector<std::string>{"fsync@openssh.com", "x"});

  auto status = DecodeSftpStatus(U32(kFxNoSuchFile) + Str("No such file") + Str("en"));
  REQUIRE(status);
  CHECK(status->code == kFxNoSuchFile);
  CHECK(status->message == "No such file");

  CHECK(DecodeSftpHandle(Str(std::string("\0h", 2))) == std::string("\0h", 2));

  std::string attrs = U32(0x1 | 0x2 | 0x4 | 0x8);
  PutSftpU64(&attrs, 1234);
  attrs += U32(1) + U32(2) + U32(0644) + U32(1000) + U32(2000);
  CHECK(DecodeSftpAttrs(attrs) == SftpFileStat{1234, 2000});
  std::string size_only = U32(0x1);
  PutSftpU64(&size_only, 5);
  CHECK(DecodeSftpAttrs(size_only) == SftpFileStat{5, 0});
}

TEST_CASE("sftp wire: malformed replies are refused, never read past their end", "[nutchfs]") {
  CHECK_FALSE(DecodeSftpVersion(""));
  CHECK_FALSE(DecodeSftpVersion(U32(3) + Str("name")));         // extension without data
  CHECK_FALSE(DecodeSftpVersion(U32(3) + U32(100) + "short"));  // string past the end
  CHECK_FALSE(DecodeSftpStatus(U32(0)));                        // no message
  CHECK_FALSE(DecodeSftpStatus(U32(4) + U32(0xffffffff) + "x"));
  CHECK_FALSE(DecodeSftpHandle("\0\0\0"));
  CHECK_FALSE(DecodeSftpHandle(U32(5) + "abcd"));
  CHECK_FALSE(DecodeSftpAttrs(U32(0x8) + U32(1) + U32(2)));  // no size
  CHECK_FALSE(DecodeSftpAttrs(U32(0x1) + U32(0)));           // size cut short
  std::string cut = U32(0x1 | 0x8);
  PutSftpU64(&cut, 5);
  CHECK_FALSE(DecodeSftpAttrs(cut + U32(1)));  // mtime missing
}

}  // namespace nutchfs
