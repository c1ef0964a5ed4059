// Golden vectors and round trips for webdb/util/coding.h.
#include "webdb/util/coding.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace webdb {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

const std::vector<std::pair<uint64_t, std::string>>& VarintGoldens() {
  static const auto* goldens = new std::vector<std::pair<uint64_t, std::string>>{
      {0, Bytes({0x00})},
      {1, Bytes({0x01})},
      {127, Bytes({0x7f})},
      {128, Bytes({0x80, 0x01})},
      {300, Bytes({0xac, 0x02})},
      {16383, Bytes({0xff, 0x7f})},
      {16384, Bytes({0x80, 0x80, 0x01})},
      {0xffffffffull, Bytes({0xff, 0xff, 0xff, 0xff, 0x0f})},
      {0x100000000ull, Bytes({0x80, 0x80, 0x80, 0x80, 0x10})},
      {1ull << 63, Bytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})},
      {~0ull, Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})},
  };
  return *goldens;
}

TEST_CASE("varint64 golden vectors encode and decode", "[coding]") {
  for (const auto& [value, bytes] : VarintGoldens()) {
    INFO("value " << value);
    std::string encoded;
    PutVarint64(&encoded, value);
    CHECK(encoded == bytes);
    CHECK(VarintLength(value) == static_cast<int>(bytes.size()));
    std::string input = bytes + "rest";
    std::string_view in = input;
    uint64_t decoded = 0;
    REQUIRE(GetVarint64(&in, &decoded));
    CHECK(decoded == value);
    CHECK(in == "rest");
  }
}

TEST_CASE("varint32 golden vectors and range", "[coding]") {
  for (const auto& [value, bytes] : VarintGoldens()) {
    INFO("value " << value);
    std::string_view in = bytes;
    uint32_t decoded = 0;
    bool fits = value <= std::numeric_limits<uint32_t>::max();
    CHECK(GetVarint32(&in, &decoded) == fits);
    if (!fits) continue;
    CHECK(decoded == value);
    std::string encoded;
    PutVarint32(&encoded, static_cast<uint32_t>(value));
    CHECK(encoded == bytes);
  }
}

TEST_CASE("malformed varints are rejected", "[coding]") {
  uint64_t v = 0;
  for (const auto& [value, bytes] : VarintGoldens()) {
    for (size_t n = 0; n < bytes.size(); ++n) {  // every proper prefix is cut off
      std::string_view in(bytes.data(), n);
      INFO("value " << value << " cut to " << n << " bytes");
      CHECK_FALSE(GetVarint64(&in, &v));
    }
  }
  std::string eleven(10, '\x80');
  eleven.push_back('\x01');
  std::string_view in = eleven;
  CHECK_FALSE(GetVarint64(&in, &v));
  std::string overflow = Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02});
  in = overflow;
  CHECK_FALSE(GetVarint64(&in, &v));
}

TEST_CASE("varint round trip of random values", "[coding][random]") {
  std::mt19937_64 rng(7);
  std::string buf;
  std::vector<uint64_t> values;
  for (int i = 0; i < 2000; ++i) {
    uint64_t x = rng() >> (rng() % 64);
    values.push_back(x);
    PutVarint64(&buf, x);
  }
  std::string_view in = buf;
  for (uint64_t expected : values) {
    uint64_t got = 0;
    REQUIRE(GetVarint64(&in, &got));
    REQUIRE(got == expected);
  }
  CHECK(in.empty());
}

TEST_CASE("fixed-width integers are little-endian", "[coding]") {
  std::string s;
  PutFixed32(&s, 0x04030201u);
  PutFixed64(&s, 0x0c0b0a0908070605ull);
  CHECK(s == Bytes({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  CHECK(DecodeFixed32(s.data()) == 0x04030201u);
  CHECK(DecodeFixed64(s.data() + 4) == 0x0c0b0a0908070605ull);
  std::string_view in = s;
  uint32_t a = 0;
  uint64_t b = 0;
  REQUIRE(GetFixed32(&in, &a));
  REQUIRE(GetFixed64(&in, &b));
  CHECK(a == 0x04030201u);
  CHECK(b == 0x0c0b0a0908070605ull);
  CHECK_FALSE(GetFixed32(&in, &a));
  std::string_view seven = std::string_view(s).substr(0, 7);
  CHECK_FALSE(GetFixed64(&seven, &b));
}

TEST_CASE("big-endian integers keep numeric order as byte order", "[coding]") {
  std::string s;
  PutBigEndian64(&s, 0x0102030405060708ull);
  CHECK(s == Bytes({1, 2, 3, 4, 5, 6, 7, 8}));
  CHECK(DecodeBigEndian64(s.data()) == 0x0102030405060708ull);
  std::string lo, hi;
  PutBigEndian64(&lo, 255);
  PutBigEndian64(&hi, 256);
  CHECK(lo < hi);
}

TEST_CASE("length-prefixed bytes", "[coding]") {
  std::string s;
  PutLengthPrefixed(&s, std::string("a\0\xff", 3));
  PutLengthPrefixed(&s, "");
  CHECK(s == Bytes({3, 'a', 0, 0xff, 0}));
  std::string_view in = s, got;
  REQUIRE(GetLengthPrefixed(&in, &got));
  CHECK(got == std::string_view("a\0\xff", 3));
  REQUIRE(GetLengthPrefixed(&in, &got));
  CHECK(got.empty());
  CHECK(in.empty());
  std::string_view short_input = std::string_view(s).substr(0, 3);
  CHECK_FALSE(GetLengthPrefixed(&short_input, &got));
}

TEST_CASE("SharedPrefixLength finds the first differing byte at every offset", "[coding]") {
  const std::string base = "http://www.example.org/a/long/path/item-0123456789.html";
  for (size_t i = 0; i < base.size(); ++i) {
    std::string other = base;
    other[i] = static_cast<char>(other[i] ^ 0x80);
    CHECK(SharedPrefixLength(base, other) == i);
    CHECK(SharedPrefixLength(other, base) == i);
    CHECK(SharedPrefixLength(base, base.substr(0, i)) == i);
  }
  CHECK(SharedPrefixLength(base, base) == base.size());
  CHECK(SharedPrefixLength("", base) == 0);
  CHECK(SharedPrefixLength(Bytes({0, 0, 0, 0, 0, 0, 0, 0, 0}), Bytes({0, 0, 0, 0, 0, 0, 0, 0, 1})) == 8);
}

TEST_CASE("CopyBytes copies n bytes for every n and touches nothing around them",
          "[coding]") {
  std::mt19937_64 rng(11);
  for (size_t n = 0; n <= 80; ++n) {
    std::string src(n, '\0');
    for (char& c : src) c = static_cast<char>(rng());
    std::string dst(n + 16, '#');
    CopyBytes(dst.data() + 8, src.data(), n);
    INFO("n = " << n);
    CHECK(dst.substr(8, n) == src);
    CHECK(dst.substr(0, 8) == std::string(8, '#'));
    CHECK(dst.substr(8 + n) == std::string(8, '#'));
  }
  CopyBytes(nullptr, nullptr, 0);  // nothing read or written
}

TEST_CASE("CompareKeys orders as bytewise compare does", "[coding]") {
  auto sign = [](int c) { return (c > 0) - (c < 0); };
  std::mt19937_64 rng(13);
  // Keys from a small alphabet with high bytes, so that many pairs share prefixes of
  // every length and differ in bytes whose sign bit is set.
  const char alphabet[] = {'\0', 'a', 'b', '\x7f', '\x80', '\xff'};
  auto key = [&] {
    std::string k(rng() % 20, '\0');
    for (char& c : k) c = alphabet[rng() % 6];
    return k;
  };
  for (int i = 0; i < 20000; ++i) {
    const std::string a = key();
    std::string b = i % 3 == 0 ? a.substr(0, rng() % (a.size() + 1)) + key() : key();
    INFO("pair " << i << ": sizes " << a.size() << " and " << b.size());
    REQUIRE(sign(CompareKeys(a, b)) == sign(a.compare(b)));
    REQUIRE(sign(CompareKeys(b, a)) == sign(b.compare(a)));
  }
  CHECK(CompareKeys("", "") == 0);
  CHECK(CompareKeys("abcdefgh", "abcdefgh") == 0);
  CHECK(CompareKeys("abcdefgh", "abcdefghi") < 0);
  CHECK(CompareKeys(Bytes({0x80, 0, 0, 0, 0, 0, 0, 0}), Bytes({0x7f, 0xff, 0, 0, 0, 0, 0, 0})) > 0);
}

TEST_CASE("PrefixKey keeps a shared prefix and appends the rest as it grows", "[coding]") {
  std::mt19937_64 rng(7);
  PrefixKey key;
  std::string model;
  CHECK(key.view().empty());
  for (int step = 0; step < 2000; ++step) {
    const size_t shared = model.empty() ? 0 : rng() % (model.size() + 1);
    std::string rest(rng() % (step < 1000 ? 40 : 400), '\0');
    for (char& c : rest) c = static_cast<char>(rng());
    key.Set(shared, rest);
    model = model.substr(0, shared) + rest;
    REQUIRE(key.view() == model);
    REQUIRE(key.size() == model.size());
    if (!model.empty()) CHECK(key[model.size() - 1] == model.back());
  }
  key.Clear();
  CHECK(key.view().empty());
  key.Set(0, "abc");
  CHECK(key.view() == "abc");
}

}  // namespace
}  // namespace webdb
