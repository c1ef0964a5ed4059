// BlockBuilder / BlockReader round trips, in-block seeks, and malformed blocks; block
// trailers (webdb/table/table_format.h).
#include "webdb/table/block.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "webdb/table/block_builder.h"
#include "webdb/table/table_format.h"
#include "webdb/util/coding.h"

namespace webdb {
namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

const std::string kPath = "/db/t.tbl";
constexpr uint64_t kBlockOffset = 4096;

Rows SampleRows() {
  return {
      {"", "empty key"},
      {std::string("\0", 1), std::string("\0\0", 2)},
      {std::string("\0\xff", 2), ""},
      {"http://a.example/", "v1"},
      {"http://a.example/x", std::string(300, '\xff')},
      {"http://a.example/xy", "v3"},
      {"http://b.example/", "v4"},
      {std::string(70000, 'k'), std::string(1000, 'v')},
      {std::string("\xff\xff\xff", 3), "last"},
  };
}

// Block bytes (without trailer) of rows.
std::string Build(const Rows& rows) {
  BlockBuilder builder;
  for (const auto& [k, v] : rows) builder.Add(k, v);
  std::string_view with_trailer = builder.Finish();
  return std::string(with_trailer.substr(0, with_trailer.size() - kBlockTrailerSize));
}

Rows ReadAll(BlockReader& reader) {
  Rows rows;
  while (reader.Next()) rows.emplace_back(reader.key(), reader.value());
  return rows;
}

// Expects reader to stop with a Corruption naming the path and an offset.
void ExpectCorruption(BlockReader& reader) {
  while (reader.Next()) {
  }
  INFO(reader.status().ToString());
  REQUIRE(reader.status().IsCorruption());
  CHECK_THAT(reader.status().message(), Catch::Contains(kPath) && Catch::Contains("offset"));
}

TEST_CASE("block round trip with hostile keys and values", "[block]") {
  Rows rows = SampleRows();
  std::string block = Build(rows);
  BlockReader reader;
  reader.Reset(block, &kPath, kBlockOffset);
  CHECK(ReadAll(reader) == rows);
  CHECK(reader.status().ok());
  CHECK(reader.key() == rows.back().first);  // the last key stays after the end
}

TEST_CASE("record lengths below 128 take one byte each, and every mix round trips",
          "[block]") {
  // One record: shared 0, unshared 1, value 1 -> three one-byte lengths.
  CHECK(Build({{"k", "v"}}) == std::string("\x00\x01\x01kv", 5));
  // Each of the three lengths at, just below and above the one-byte limit, in every
  // combination, so that headers are read by the one-test path and varint by varint. A
  // combination's record follows a key made for it (its first byte unique to the
  // combination) with which it shares exactly `shared` bytes.
  const size_t sizes[] = {0, 1, 127, 128, 300};
  Rows rows;
  int id = 0;
  size_t encoded = 0;  // the block's size with every length a minimal varint
  for (size_t shared : sizes) {
    for (size_t unshared : sizes) {
      if (unshared == 0) continue;  // a key must grow past the one before it
      for (size_t value : sizes) {
        const char first = static_cast<char>(2 * id++);
        rows.emplace_back(std::string(1, first) + std::string(shared + 5, 'a'), "base");
        encoded += 2 + VarintLength(shared + 6) + shared + 6 + 4;  // shares nothing before it
        std::string key = shared == 0 ? std::string(1, static_cast<char>(first + 1))
                                      : std::string(1, first) + std::string(shared - 1, 'a') + "b";
        key.append(unshared - 1, 'c');
        rows.emplace_back(key, std::string(value, static_cast<char>(0x80 | value)));
        encoded += VarintLength(shared) + VarintLength(unshared) + VarintLength(value) +
                   unshared + value;
      }
    }
  }
  REQUIRE(rows.size() == 200);
  std::string block = Build(rows);
  CHECK(block.size() == encoded);
  BlockReader reader;
  reader.Reset(block, &kPath, kBlockOffset);
  CHECK(ReadAll(reader) == rows);
  CHECK(reader.status().ok());
  // Cut anywhere, the block is refused, never read short.
  for (size_t cut = 1; cut < 40 && cut < block.size(); ++cut) {
    BlockReader cut_reader;
    const std::string shorter = block.substr(0, block.size() - cut);
    cut_reader.Reset(shorter, &kPath, kBlockOffset);
    ExpectCorruption(cut_reader);
  }
}

TEST_CASE("block seek finds the first key at or after the target", "[block]") {
  Rows rows = SampleRows();
  std::string block = Build(rows);
  BlockReader reader;
  reader.Reset(block, &kPath, kBlockOffset);
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i);
    REQUIRE(reader.Seek(rows[i].first));
    CHECK(reader.key() == rows[i].first);
    CHECK(reader.value() == rows[i].second);
    if (i + 1 < rows.size()) {  // between row i and row i+1
      REQUIRE(reader.Seek(rows[i].first + std::string("\0", 1)));
      CHECK(reader.key() == rows[i + 1].first);
    }
  }
  CHECK_FALSE(reader.Seek(rows.back().first + "x"));
  CHECK(reader.status().ok());
  REQUIRE(reader.Seek(rows[3].first));
  REQUIRE(reader.Next());
  CHECK(reader.key() == rows[4].first);  // Next continues after a seek
}

TEST_CASE("block prefix compression shares key prefixes", "[block]") {
  Rows rows;
  for (int i = 0; i < 100; ++i)
    rows.emplace_back("http://same.example/page/" + std::to_string(1000 + i), "");
  std::string block = Build(rows);
  CHECK(block.size() < 100 * 10);
}

TEST_CASE("truncated block contents are Corruption, never short records", "[block][fault]") {
  Rows rows = SampleRows();
  BlockBuilder builder;
  std::vector<size_t> ends;  // where each record ends
  for (const auto& [k, v] : rows) {
    builder.Add(k, v);
    ends.push_back(builder.size());
  }
  std::string block = Build(rows);
  for (size_t n = 1; n < block.size(); n += (n < 400 ? 1 : 997)) {
    BlockReader reader;
    reader.Reset(std::string_view(block).substr(0, n), &kPath, kBlockOffset);
    Rows got = ReadAll(reader);
    INFO("cut at " << n);
    size_t whole = 0;  // records that end at or before the cut
    while (ends[whole] <= n) ++whole;
    REQUIRE(got == Rows(rows.begin(), rows.begin() + whole));
    // A cut at a record boundary is invisible inside the block (the trailer crc catches
    // it); any other cut must be reported.
    if (whole > 0 && ends[whole - 1] == n) {
      CHECK(reader.status().ok());
    } else {
      ExpectCorruption(reader);
    }
  }
}

TEST_CASE("records are counted without decoding keys, and cut ones refused", "[block][fault]") {
  Rows small;  // one-byte lengths throughout
  for (int i = 0; i < 50; ++i) small.emplace_back("http://a.example/" + std::to_string(100 + i), "v");
  for (const Rows& rows : {SampleRows(), small}) {
    std::vector<size_t> ends;  // where each record ends
    BlockBuilder builder;
    for (const auto& [k, v] : rows) {
      builder.Add(k, v);
      ends.push_back(builder.size());
    }
    const std::string block = Build(rows);
    CHECK(CountBlockRecords(block) == rows.size());
    for (size_t n = 0; n < block.size(); n += (n < 600 ? 1 : 997)) {
      INFO("cut at " << n);
      const std::optional<uint64_t> count = CountBlockRecords(std::string_view(block).substr(0, n));
      const size_t whole = static_cast<size_t>(std::upper_bound(ends.begin(), ends.end(), n) - ends.begin());
      if (n == 0 || (whole > 0 && ends[whole - 1] == n)) {
        CHECK(count == whole);
      } else {
        CHECK_FALSE(count.has_value());
      }
    }
  }
}

std::string Record(uint32_t shared, uint32_t unshared, uint32_t value_size, std::string rest) {
  std::string s;
  PutVarint32(&s, shared);
  PutVarint32(&s, unshared);
  PutVarint32(&s, value_size);
  return s + rest;
}

TEST_CASE("malformed records are Corruption", "[block][fault]") {
  std::string first = Record(0, 3, 1, "abcv");
  std::vector<std::pair<std::string, std::string>> cases = {
      {"first record shares a prefix", Record(1, 2, 0, "bc")},
      {"shared longer than previous key", first + Record(4, 1, 0, "z")},
      {"equal key", first + Record(3, 0, 0, "")},
      {"prefix of previous key", first + Record(2, 0, 0, "")},
      {"smaller key", first + Record(1, 1, 0, "a")},
      {"not maximal shared prefix", first + Record(1, 2, 0, "bd")},
      {"key past block end", first + Record(3, 100, 0, "d")},
      {"value past block end", first + Record(3, 1, 0xffffffffu, "d")},
      {"varint too long", first + std::string(6, '\x80') + std::string(1, '\x01')},
      {"varint over 32 bits", first + std::string("\xff\xff\xff\xff\x1f\x00\x00", 7)},
      {"cut header", first + std::string("\x00\x80", 2)},
  };
  for (const auto& [name, block] : cases) {
    SECTION(name) {
      BlockReader reader;
      reader.Reset(block, &kPath, kBlockOffset);
      ExpectCorruption(reader);
      CHECK_THAT(reader.status().message(), Catch::Contains("block at offset 4096"));
    }
  }
}

TEST_CASE("mutated blocks decode to increasing keys or Corruption", "[block][fault][random]") {
  std::string block = Build(SampleRows());
  std::mt19937 rng(5);
  for (int round = 0; round < 3000; ++round) {
    std::string bad = block.substr(0, rng() % 2 == 0 ? block.size() : 200 + rng() % 300);
    for (int i = 0, n = 1 + rng() % 4; i < n; ++i) {
      size_t pos = rng() % std::min<size_t>(bad.size(), 400);  // where the headers are dense
      bad[pos] = static_cast<char>(rng());
    }
    BlockReader reader;
    reader.Reset(bad, &kPath, kBlockOffset);
    Rows got = ReadAll(reader);
    INFO("round " << round);
    for (size_t i = 1; i < got.size(); ++i) REQUIRE(got[i - 1].first < got[i].first);
    if (!reader.status().ok()) REQUIRE(reader.status().IsCorruption());
  }
}

TEST_CASE("block trailer detects every flipped byte and bad types", "[block][fault]") {
  BlockBuilder builder;
  for (const auto& [k, v] : SampleRows()) builder.Add(k, v);
  std::string with_trailer(builder.Finish());
  Result<std::string_view> ok = CheckBlockTrailer(with_trailer, kPath, kBlockOffset);
  REQUIRE(ok.has_value());
  CHECK(ok->size() == with_trailer.size() - kBlockTrailerSize);
  for (size_t i = 0; i < with_trailer.size();
       i += (i < 100 || i + 100 > with_trailer.size() ? 1 : 89)) {
    std::string bad = with_trailer;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    Result<std::string_view> r = CheckBlockTrailer(bad, kPath, kBlockOffset);
    INFO("flipped byte " << i);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().IsCorruption());
    CHECK_THAT(r.error().message(),
               Catch::Contains(kPath + ": ") && Catch::Contains("at offset 4096"));
  }
  CHECK_FALSE(CheckBlockTrailer("abc", kPath, 0).has_value());
}

// Keys in groups by their first four bytes: "aaaa", "aaab" with keys longer and shorter
// than the group's first, "aab" (shares two bytes), "abcd" alone, "zzzz".
Rows GroupedRows() {
  return {{"aaaa/1", "v"},
          {"aaaa/2", ""},
          {"aaaa/22", "vv"},
          {"aaab", "x"},
          {"aaab/long/key", std::string(200, 'y')},
          {"aaab/m", "z"},
          {"aab/1", "w"},
          {"abcd", "u"},
          {"zzzz/1", "t"},
          {"zzzz/2", "s"}};
}

TEST_CASE("block skip moves past the records that share the current key's first n bytes",
          "[block]") {
  const Rows rows = GroupedRows();
  const std::string block = Build(rows);
  for (size_t n : {size_t{1}, size_t{2}, size_t{4}}) {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].first.size() < n) continue;
      INFO("n " << n << ", from row " << i);
      BlockReader reader;
      reader.Reset(block, &kPath, kBlockOffset);
      for (size_t j = 0; j <= i; ++j) REQUIRE(reader.Next());
      size_t end = i + 1;  // the first row of another prefix
      while (end < rows.size() && rows[end].first.starts_with(rows[i].first.substr(0, n))) ++end;
      size_t last_size = 0;
      CHECK(reader.SkipSharing(n, &last_size) == end - i - 1);
      CHECK(last_size == rows[end - 1].first.size());
      CHECK(ReadAll(reader) == Rows(rows.begin() + static_cast<ptrdiff_t>(end), rows.end()));
      CHECK(reader.status().ok());
    }
  }
}

TEST_CASE("block reader passes the records below a limit and stops on the first at or above it",
          "[block]") {
  const Rows rows = GroupedRows();
  const std::string block = Build(rows);
  std::vector<std::optional<std::string>> limits = {std::nullopt, "", "aaaa/1x", "zzzz/3"};
  for (const auto& [k, v] : rows) limits.emplace_back(k);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (const std::optional<std::string>& limit : limits) {
      INFO("from row " << i << ", limit " << (limit ? *limit : "none"));
      BlockReader reader;
      reader.Reset(block, &kPath, kBlockOffset);
      for (size_t j = 0; j <= i; ++j) REQUIRE(reader.Next());
      size_t stop = i + 1;  // the first row at or above the limit
      while (stop < rows.size() && (!limit || rows[stop].first < *limit)) ++stop;
      uint64_t passed = 0;
      const bool on_row = reader.NextAtOrAbove(
          limit ? std::optional<std::string_view>(*limit) : std::nullopt, &passed);
      CHECK(passed == stop - i - 1);
      CHECK(on_row == (stop < rows.size()));
      CHECK(reader.status().ok());
      if (on_row) {
        CHECK(reader.key() == rows[stop].first);
        CHECK(reader.value() == rows[stop].second);
        CHECK(ReadAll(reader) == Rows(rows.begin() + static_cast<ptrdiff_t>(stop) + 1, rows.end()));
      }
    }
  }
}

// Both moves past records, the skip by shared prefix and the move to a limit, refuse the
// malformed records they meet; the skip reads lengths, not key order.
TEST_CASE("moves past records refuse malformed ones", "[block][fault]") {
  const std::string first = Record(0, 6, 1, "aaaa/1v");
  struct Case {
    std::string name;
    std::string block;
    bool skip_refuses = true;
  };
  const std::vector<Case> cases = {
      {"shared longer than previous key", first + Record(7, 1, 0, "z")},
      {"equal key", first + Record(6, 0, 0, "")},
      {"key past block end", first + Record(5, 100, 0, "2")},
      {"value past block end", first + Record(5, 1, 0xffffffffu, "2")},
      {"cut header", first + std::string("\x05\x80", 2)},
      {"bad record after good ones", first + Record(5, 1, 0, "2") + Record(9, 1, 0, "3")},
      {"smaller key", first + Record(5, 1, 0, "0"), false},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      for (bool skip : {false, true}) {
        if (skip && !c.skip_refuses) continue;
        INFO((skip ? "skip" : "move to a limit"));
        BlockReader reader;
        reader.Reset(c.block, &kPath, kBlockOffset);
        REQUIRE(reader.Next());
        if (skip) {
          size_t last_size = 0;
          reader.SkipSharing(4, &last_size);
        } else {
          uint64_t passed = 0;
          CHECK_FALSE(reader.NextAtOrAbove(std::nullopt, &passed));
        }
        ExpectCorruption(reader);
        CHECK_THAT(reader.status().message(), Catch::Contains("block at offset 4096"));
      }
    }
  }
}

TEST_CASE("builder reset starts an independent block", "[block]") {
  BlockBuilder builder;
  builder.Add("zzz", "1");
  (void)builder.Finish();  // discarded on purpose: only the reset block matters here
  builder.Reset();
  CHECK(builder.empty());
  builder.Add("aaa", "2");
  CHECK(builder.last_key() == "aaa");
  std::string_view with_trailer = builder.Finish();
  BlockReader reader;
  reader.Reset(with_trailer.substr(0, with_trailer.size() - kBlockTrailerSize), &kPath, 0);
  CHECK(ReadAll(reader) == Rows{{"aaa", "2"}});
}

}  // namespace
}  // namespace webdb
