// Golden vectors for webdb/util/crc32c.h, cross-checked against a bitwise reference.
#include "webdb/util/crc32c.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace webdb::crc32c {
namespace {

// Bit-at-a-time CRC32C (reflected polynomial 0x82f63b78): slow and obviously right.
uint32_t Reference(std::string_view data) {
  uint32_t c = 0xffffffffu;
  for (unsigned char byte : data) {
    c ^= byte;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
  }
  return ~c;
}

TEST_CASE("crc32c standard golden vectors", "[crc32c]") {
  CHECK(Value("123456789") == 0xe3069283u);
  CHECK(Value(std::string(32, '\0')) == 0x8a9136aau);
  CHECK(Value(std::string(32, '\xff')) == 0x62a8ab43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  CHECK(Value(ascending) == 0x46dd794eu);
  CHECK(Value(descending) == 0x113fdb5cu);
  CHECK(Value("") == 0u);
}

TEST_CASE("crc32c matches the bitwise reference and extends at any split", "[crc32c][random]") {
  std::mt19937 rng(11);
  for (size_t n = 0; n < 200; ++n) {
    std::string data(n, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    INFO("length " << n);
    uint32_t whole = Value(data);
    REQUIRE(whole == Reference(data));
    size_t split = n == 0 ? 0 : rng() % (n + 1);
    uint32_t parts = Extend(Value(data.data(), split), data.data() + split, n - split);
    REQUIRE(parts == whole);
    uint32_t bytewise = 0;
    for (char c : data) bytewise = Extend(bytewise, &c, 1);
    REQUIRE(bytewise == whole);
  }
}

TEST_CASE("crc32c combines the crcs of two pieces into that of both", "[crc32c][random]") {
  std::mt19937 rng(13);
  std::string data(1 << 20, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  std::vector<size_t> lengths = {0, 1, 2, 3, 7, 8, 255, 256, 4096, 8192 + 5, 32768 + 5, 1 << 20};
  for (int i = 0; i < 40; ++i) lengths.push_back(rng() % (data.size() + 1));
  for (size_t len_b : lengths) {
    const size_t len_a = rng() % (data.size() - len_b + 1);
    INFO("A " << len_a << " bytes, B " << len_b);
    const std::string_view a(data.data(), len_a), b(data.data() + len_a, len_b);
    CHECK(Combine(Value(a), Value(b), len_b) == Value(data.data(), len_a + len_b));
  }
  // Lengths beyond what can be held: against shifting piecewise.
  const uint32_t x = Value("x"), y = Value("y");
  const uint64_t huge = (uint64_t{1} << 40) + 12345;
  CHECK(Combine(Combine(x, 0, huge), y, 1) == Combine(x, Combine(0, y, 1), huge + 1));
}

TEST_CASE("crc32c of long buffers at any alignment matches the reference", "[crc32c][random]") {
  std::mt19937 rng(12);
  std::string data(3 * 4096 * 3 + 3 * 256 * 2 + 77, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (int i = 0; i < 60; ++i) {
    size_t begin = rng() % 64;
    size_t n = i < 20 ? data.size() - begin : rng() % (data.size() - begin);
    std::string_view piece(data.data() + begin, n);
    INFO("begin " << begin << " length " << n);
    REQUIRE(Value(piece) == Reference(piece));
    size_t split = rng() % (n + 1);
    REQUIRE(Extend(Value(piece.substr(0, split)), piece.data() + split, n - split) ==
            Reference(piece));
  }
  CHECK(Value(std::string(1 << 20, 'a')) == Reference(std::string(1 << 20, 'a')));
}

TEST_CASE("crc32c values differ for different data", "[crc32c]") {
  CHECK(Value("a") != Value("foo"));
  CHECK(Value("hello world") != Value("hello worle"));
}

TEST_CASE("crc32c mask round trip", "[crc32c]") {
  for (uint32_t crc : {0u, 1u, 0xe3069283u, 0xffffffffu, 0x80000000u, 0x12345678u}) {
    INFO("crc " << crc);
    CHECK(Mask(crc) != crc);
    CHECK(Mask(Mask(crc)) != Mask(crc));
    CHECK(Unmask(Mask(crc)) == crc);
    CHECK(Unmask(Unmask(Mask(Mask(crc)))) == crc);
  }
}

}  // namespace
}  // namespace webdb::crc32c
