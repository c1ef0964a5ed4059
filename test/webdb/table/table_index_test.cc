// Table's index read a group of kIndexGroup entries at a time (Table::IndexReader): every
// block's last key and handle as the file has them, in any order of access, the search
// for a key's block, scans and seeks across group boundaries, memory of one key a group,
// and an index damaged after the table was opened reported as Corruption. And the
// TableBuilder's side: a large index written through a side file, which is removed.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "nutchfs/env.h"
#include "test/util/corrupt.h"
#include "test/util/temp_dir.h"
#include "webdb/table/table.h"
#include "webdb/table/table_builder.h"
#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

// Url-like keys in order, values of 10-40 bytes: with 256-byte blocks, a few rows a block.
Rows MakeRows(size_t n) {
  std::mt19937 rng(5);
  Rows rows;
  for (size_t i = 0; i < n; ++i) {
    char key[48];
    std::snprintf(key, sizeof(key), "http://h%03zu.example/page/%08zu", i / 500, i);
    rows.emplace_back(key, std::string(10 + rng() % 30, static_cast<char>('a' + i % 26)));
  }
  return rows;
}

std::string FileBytes(nutchfs::Env& env, const std::string& path) {
  auto file = env.NewRandomAccessFile(path);
  REQUIRE(file.has_value());
  std::string bytes((*file)->size(), '\0');
  auto got = (*file)->Read(0, bytes.size(), bytes.data());
  REQUIRE(got.has_value());
  return std::string(*got);
}

struct Fixture {
  Fixture() : env(nutchfs::NewLocalEnv()), path(dir.File("t.tbl")), rows(MakeRows(20000)) {
    auto builder = TableBuilder::Create(*env, path, /*target_block_size=*/256);
    REQUIRE(builder.has_value());
    for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
    REQUIRE((*builder)->Finish().ok());
    auto opened = Table::Open(*env, path);
    REQUIRE(opened.has_value());
    table = std::move(*opened);
    REQUIRE(table->num_blocks() > 10 * Table::kIndexGroup);  // many groups
    // Each block's last key, found by a scan.
    auto it = table->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const uint64_t b = *it->BlockIndex();
      if (b == last_keys.size()) last_keys.emplace_back();
      last_keys[b] = std::string(it->key());
    }
    REQUIRE(it->status().ok());
    REQUIRE(last_keys.size() == table->num_blocks());
  }

  testutil::TempDir dir;
  std::unique_ptr<nutchfs::Env> env;
  std::string path;
  Rows rows;
  std::unique_ptr<Table> table;
  std::vector<std::string> last_keys;
};

TEST_CASE("the index gives every block's last key and handle, in any order", "[table]") {
  Fixture f;
  const uint64_t n = f.table->num_blocks();
  std::vector<uint64_t> order(n);
  for (uint64_t i = 0; i < n; ++i) order[i] = i;
  SECTION("in order") {}
  SECTION("backwards") { std::reverse(order.begin(), order.end()); }
  SECTION("at random") { std::shuffle(order.begin(), order.end(), std::mt19937(3)); }
  Table::IndexReader index(*f.table);
  std::vector<BlockHandle> handles(n);
  for (uint64_t i : order) {
    INFO("block " << i);
    Result<std::string_view> key = index.LastKey(i);
    REQUIRE(key.has_value());
    CHECK(*key == f.last_keys[i]);
    Result<BlockHandle> h = index.Handle(i);
    REQUIRE(h.has_value());
    handles[i] = *h;
  }
  // Blocks follow each other from offset 0 up to the index.
  CHECK(handles[0].offset == 0);
  for (uint64_t i = 1; i < n; ++i) CHECK(handles[i].offset == handles[i - 1].end());
  CHECK(handles[n - 1].end() == f.table->footer(0).index.offset);
}

TEST_CASE("the index finds the first block ending at or above a key", "[table]") {
  Fixture f;
  Table::IndexReader index(*f.table);
  const uint64_t n = f.table->num_blocks();
  for (uint64_t i = 0; i < n; i += 1 + i % 5) {
    INFO("block " << i);
    CHECK(*index.FirstBlockEndingAtOrAbove(f.last_keys[i]) == i);
    // Just above a block's last key is the next block.
    CHECK(*index.FirstBlockEndingAtOrAbove(f.last_keys[i] + '\0') == i + 1);
  }
  CHECK(*index.FirstBlockEndingAtOrAbove("") == 0);
  CHECK(*index.FirstBlockEndingAtOrAbove("\xff") == n);
  // Mapped by a join: the host of a url, a prefix nondecreasing in key order.
  auto host = [](std::string_view k) { return k.substr(0, 12); };  // "http://hNNN."
  const uint64_t found = *index.FirstBlockEndingAtOrAbove("http://h007.", +host);
  CHECK(host(f.last_keys[found]) >= "http://h007.");
  CHECK((found == 0 || host(f.last_keys[found - 1]) < "http://h007."));
}

TEST_CASE("scans, seeks and ranges cross the groups of the index", "[table]") {
  Fixture f;
  auto it = f.table->NewIterator();
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) REQUIRE(it->key() == f.rows[i].first);
  CHECK(it->status().ok());
  CHECK(i == f.rows.size());
  for (size_t r = 0; r < f.rows.size(); r += 97) {
    it->Seek(f.rows[r].first);
    REQUIRE(it->Valid());
    CHECK(it->key() == f.rows[r].first);
  }
  // A range from the last key of one group to that of a group further on.
  const uint64_t g = Table::kIndexGroup;
  const KeyRange range{f.last_keys[g - 1], f.last_keys[4 * g - 1]};
  auto in_range = f.table->NewIterator(range);
  size_t count = 0;
  for (in_range->SeekToFirst(); in_range->Valid(); in_range->Next()) {
    CHECK(range.Contains(in_range->key()));
    ++count;
  }
  CHECK(in_range->status().ok());
  CHECK(count == static_cast<size_t>(std::count_if(f.rows.begin(), f.rows.end(), [&](const auto& r) {
          return range.Contains(r.first);
        })));
}

TEST_CASE("an open table keeps one key of its index a group, not one a block", "[table]") {
  Fixture f;
  const Footer& footer = f.table->footer(0);
  // The index is ~40 bytes a block; a group's summary is a key and a few integers.
  CHECK(Table::IndexMemory(footer) < footer.index.size / 8);
}

TEST_CASE("an index damaged after the table was opened is Corruption naming the file", "[table]") {
  Fixture f;
  // A byte in the entries of a group in the middle of the index, read again by a scan.
  const Footer& footer = f.table->footer(0);
  testutil::FlipByte(f.path, footer.index.offset + footer.index.size / 2);
  auto it = f.table->NewIterator();
  size_t rows = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++rows;
  CHECK(rows < f.rows.size());
  REQUIRE(it->status().IsCorruption());
  CHECK_THAT(it->status().ToString(), Catch::Contains(f.path));
  CHECK_THAT(it->status().ToString(), Catch::Contains("index entries differ"));
  // Opened again, the table's index fails its checksum.
  auto reopened = Table::Open(*f.env, f.path);
  REQUIRE(!reopened.has_value());
  CHECK_THAT(reopened.error().ToString(), Catch::Contains("block checksum mismatch"));
}

TEST_CASE("a builder holds a large index in a side file and copies it at Finish", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string path = dir.File("big.tbl");
  const std::string side = path + ".tmp.index";
  const Rows rows = MakeRows(60000);
  auto builder = TableBuilder::Create(*env, path, /*target_block_size=*/128);
  REQUIRE(builder.has_value());
  for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
  CHECK(env->FileExists(side));  // the index is over 1 MiB: part of it went there
  REQUIRE((*builder)->Finish().ok());
  CHECK(!env->FileExists(side));
  const uint64_t size = (*builder)->file_size();
  const uint32_t crc = (*builder)->file_crc();
  builder->reset();

  auto table = Table::Open(*env, path);
  REQUIRE(table.has_value());
  CHECK((*table)->footer(0).index.size > (1 << 20));
  // The bytes are those the builder accounted for, and every row reads back.
  const std::string bytes = FileBytes(*env, path);
  CHECK(bytes.size() == size);
  CHECK(crc32c::Value(bytes) == crc);
  auto it = (*table)->NewIterator();
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++i) REQUIRE(it->key() == rows[i].first);
  CHECK(it->status().ok());
  CHECK(i == rows.size());
}

TEST_CASE("a builder destroyed before Finish removes its side file", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string path = dir.File("big.tbl");
  const Rows rows = MakeRows(60000);
  {
    auto builder = TableBuilder::Create(*env, path, /*target_block_size=*/128);
    REQUIRE(builder.has_value());
    for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
    REQUIRE(env->FileExists(path + ".tmp.index"));
  }
  CHECK(!env->FileExists(path + ".tmp.index"));
}

}  // namespace
}  // namespace webdb
