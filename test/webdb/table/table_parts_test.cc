// Table over several part files and iterators within a key range: the same rows as one
// file would give, block numbers across the parts, moves that stop at the range's end,
// and parts that disagree with each other reported as Corruption.
#include <catch2/catch.hpp>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nutchfs/env.h"
#include "test/util/temp_dir.h"
#include "webdb/table/table.h"
#include "webdb/table/table_builder.h"

namespace webdb {
namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

// Groups of keys sharing a 4-byte prefix; groups of one to max_group keys.
Rows Groups(std::mt19937& rng, int groups, size_t max_group) {
  Rows rows;
  for (int g = 0; g < groups; ++g) {
    const std::string prefix = std::to_string(1000 + 3 * g);
    std::set<std::string> keys;
    const size_t n = 1 + rng() % max_group;
    while (keys.size() < n) {
      keys.insert(prefix + std::string(rng() % 20, 'k') + std::to_string(rng() % 1000));
    }
    for (const std::string& k : keys) rows.emplace_back(k, std::string(rng() % 30, 'v'));
  }
  return rows;
}

void Write(nutchfs::Env& env, const std::string& path, Rows::const_iterator first,
           Rows::const_iterator last) {
  auto builder = TableBuilder::Create(env, path, /*target_block_size=*/96);
  REQUIRE(builder.has_value());
  for (auto r = first; r != last; ++r) REQUIRE((*builder)->Add(r->first, r->second).ok());
  REQUIRE((*builder)->Finish().ok());
}

// rows written as parts cut at the given row positions (a cut may repeat: an empty part).
std::unique_ptr<Table> Parted(nutchfs::Env& env, const testutil::TempDir& dir, const Rows& rows,
                              std::vector<size_t> cuts) {
  cuts.push_back(rows.size());
  std::vector<std::unique_ptr<nutchfs::RandomAccessFile>> files;
  size_t begin = 0;
  for (size_t p = 0; p < cuts.size(); ++p) {
    const std::string path = dir.File("part" + std::to_string(p) + ".tbl");
    Write(env, path, rows.begin() + begin, rows.begin() + cuts[p]);
    begin = cuts[p];
    auto file = env.NewRandomAccessFile(path);
    REQUIRE(file.has_value());
    files.push_back(std::move(*file));
  }
  auto table = Table::Open(std::move(files));
  INFO((table ? std::string("ok") : table.error().ToString()));
  REQUIRE(table.has_value());
  return std::move(*table);
}

Rows InRange(const Rows& rows, const KeyRange& range) {
  Rows out;
  for (const auto& r : rows) {
    if (range.Contains(r.first)) out.push_back(r);
  }
  return out;
}

// Every row from the first the iterator stands on; its status must be OK at the end.
Rows ScanAll(Iterator& it) {
  Rows rows;
  for (it.SeekToFirst(); it.Valid(); it.Next()) rows.emplace_back(it.key(), it.value());
  CHECK(it.status().ok());
  return rows;
}

// A directory, an Env and rows in groups (seeded).
struct Fixture {
  Fixture(uint32_t seed, int groups, size_t max_group)
      : rng(seed), rows(Groups(rng, groups, max_group)) {}
  testutil::TempDir dir;
  std::unique_ptr<nutchfs::Env> env = nutchfs::NewLocalEnv();
  std::mt19937 rng;
  const Rows rows;
};

// A key near row i: the row's own key, or one just below or above it.
std::string KeyNear(const Rows& rows, size_t i, int how) {
  const std::string& k = rows[i].first;
  if (how == 0) return k;
  if (how == 1) return k + std::string("\0", 1);
  return k.substr(0, k.size() - 1);
}

TEST_CASE("a table in parts reads as the one file of its rows would", "[table]") {
  Fixture f(3, 80, 12);
  const Rows& rows = f.rows;
  const size_t n = rows.size();
  auto table = Parted(*f.env, f.dir, rows, {0, n / 3, n / 3, n / 3 + 1, 2 * n / 3});
  CHECK(table->num_parts() == 6);
  CHECK(table->num_records() == n);
  REQUIRE(table->num_blocks() > 30);
  for (uint64_t b = 1; b < table->num_blocks(); ++b) {
    CHECK(*table->BlockLastKey(b - 1) < *table->BlockLastKey(b));
  }
  CHECK(*table->BlockLastKey(table->num_blocks() - 1) == rows.back().first);

  auto it = table->NewIterator();
  CHECK(ScanAll(*it) == rows);
  for (size_t i = 0; i < n; ++i) {
    INFO("row " << i);
    it->Seek(rows[i].first);
    REQUIRE(it->Valid());
    CHECK(it->key() == rows[i].first);
    // Block numbers count across the parts: the block a row is in ends at or after it.
    const std::optional<uint64_t> block = it->BlockIndex();
    REQUIRE(block.has_value());
    CHECK(*table->BlockLastKey(*block) >= rows[i].first);
    if (*block > 0) CHECK(*table->BlockLastKey(*block - 1) < rows[i].first);
  }
}

TEST_CASE("an iterator within a key range sees the rows of the range only", "[table]") {
  Fixture f(5, 60, 15);
  const Rows& rows = f.rows;
  std::mt19937& rng = f.rng;
  const size_t n = rows.size();
  auto one_file = Parted(*f.env, f.dir, rows, {});
  testutil::TempDir dir2;
  auto parted = Parted(*f.env, dir2, rows, {n / 4, n / 2, n / 2});
  for (const Table* table : {one_file.get(), parted.get()}) {
    for (int trial = 0; trial < 200; ++trial) {
      KeyRange range;
      const size_t a = rng() % n, b = rng() % n;
      if (trial % 5 != 0) range.lower = KeyNear(rows, std::min(a, b), trial % 3);
      if (trial % 7 != 0) range.upper = KeyNear(rows, std::max(a, b), (trial / 3) % 3);
      INFO("trial " << trial << " [" << range.lower << ", " << range.upper.value_or("-") << ")");
      const Rows expected = InRange(rows, range);
      auto it = table->NewIterator(range);
      CHECK(ScanAll(*it) == expected);
      // Seeks below the range land on its first row; above it, nowhere.
      it->Seek("");
      CHECK(it->Valid() == !expected.empty());
      if (it->Valid()) CHECK(it->key() == expected.front().first);
      if (range.upper) {
        it->Seek(*range.upper);
        CHECK_FALSE(it->Valid());
        CHECK(it->status().ok());
      }
      // The blocks it offers hold rows of the range only.
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        if (auto start = it->AtBlockStart()) CHECK(range.Contains(start->last_key));
      }
      for (uint64_t b = 0; b < table->num_blocks(); ++b) {
        if (auto start = it->BlockAt(b); start && b > 0) {
          CHECK(range.Contains(start->last_key));
        }
      }
    }
  }
}

// Moves every row of the range with a mix of steps, the moves over several rows
// included; returns how many rows it counted and the keys it stood on.
std::pair<uint64_t, std::vector<std::string>> Walk(Iterator& it, std::mt19937& rng) {
  uint64_t rows = 0;
  std::vector<std::string> stood_on;
  it.SeekToFirst();
  while (it.Valid()) {
    stood_on.emplace_back(it.key());
    switch (rng() % 3) {
      case 0:
        it.Next();
        ++rows;
        break;
      case 1:
        rows += it.SkipRowsSharing(4);
        break;
      default: {
        uint64_t moved = 0;
        const std::string limit = stood_on.back() + "zz";
        REQUIRE(it.MoveRowsInBlock(limit, nullptr, &moved).ok());
        rows += moved + 1;
      }
    }
  }
  REQUIRE(it.status().ok());
  return {rows, stood_on};
}

TEST_CASE("moves over several rows stop at the end of the range", "[table]") {
  Fixture f(7, 50, 25);
  const Rows& rows = f.rows;
  std::mt19937& rng = f.rng;
  const size_t n = rows.size();
  auto table = Parted(*f.env, f.dir, rows, {n / 3, 2 * n / 3});
  for (int trial = 0; trial < 300; ++trial) {
    KeyRange range;
    const size_t a = rng() % n, b = rng() % n;
    range.lower = KeyNear(rows, std::min(a, b), trial % 3);
    range.upper = KeyNear(rows, std::max(a, b), (trial / 3) % 3);
    // Some ranges end inside a group of rows sharing a prefix.
    if (trial % 4 == 0) range.upper = range.upper->substr(0, 4) + "kkkkk";
    INFO("trial " << trial << " [" << range.lower << ", " << *range.upper << ")");
    const Rows expected = InRange(rows, range);
    auto it = table->NewIterator(range);
    auto [counted, stood_on] = Walk(*it, rng);
    CHECK(counted == expected.size());
    for (const std::string& k : stood_on) CHECK(range.Contains(k));
  }
}

TEST_CASE("parts out of key order are Corruption naming the part", "[table]") {
  Fixture f(9, 30, 10);
  const Rows& rows = f.rows;
  testutil::TempDir& dir = f.dir;
  auto& env = f.env;
  const size_t n = rows.size();
  auto open = [&](std::vector<std::string> paths) {
    std::vector<std::unique_ptr<nutchfs::RandomAccessFile>> files;
    for (const std::string& p : paths) files.push_back(std::move(*env->NewRandomAccessFile(p)));
    return Table::Open(std::move(files));
  };
  const std::string low = dir.File("low.tbl"), high = dir.File("high.tbl");
  Write(*env, low, rows.begin(), rows.begin() + n / 2);
  Write(*env, high, rows.begin() + n / 2, rows.end());

  SECTION("the parts swapped") {
    auto table = open({high, low});
    REQUIRE_FALSE(table.has_value());
    CHECK(table.error().IsCorruption());
    CHECK(table.error().message().find(low) != std::string::npos);
  }
  SECTION("a part whose first key is not above the part before it") {
    // The second part's blocks end above the first's, but it starts below.
    const std::string overlap = dir.File("overlap.tbl");
    Write(*env, overlap, rows.begin() + n / 2 - 1, rows.end());
    auto table = open({low, overlap});
    REQUIRE(table.has_value());
    auto it = (*table)->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
    }
    CHECK(it->status().IsCorruption());
    CHECK(it->status().message().find(overlap) != std::string::npos);
  }
  SECTION("a full scan passes every part's record count check") {
    auto table = open({low, high});
    REQUIRE(table.has_value());
    CHECK((*table)->num_records() == n);
    auto it = (*table)->NewIterator();
    CHECK(ScanAll(*it).size() == n);
  }
}

}  // namespace
}  // namespace webdb
