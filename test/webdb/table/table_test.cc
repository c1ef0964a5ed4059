// TableBuilder and Table: round trips, seeks, concurrent readers, and damaged files
// (flipped bytes, truncation, crafted blocks) reported as Corruption, never wrong data.
#include "webdb/table/table.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nutchfs/env.h"
#include "test/util/corrupt.h"
#include "test/util/row_util.h"
#include "test/util/temp_dir.h"
#include "webdb/db/table_writer.h"
#include "webdb/table/block_builder.h"
#include "webdb/table/table_builder.h"
#include "webdb/table/table_format.h"
#include "webdb/util/coding.h"
#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

struct Built {
  uint64_t file_size = 0;
  uint32_t file_crc = 0;
};

Built WriteTable(nutchfs::Env& env, const std::string& path, const Rows& rows,
                 size_t target_block_size = kTargetBlockSize) {
  auto builder = TableBuilder::Create(env, path, target_block_size);
  REQUIRE(builder.has_value());
  for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
  Status s = (*builder)->Finish();
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK((*builder)->num_records() == rows.size());
  return Built{(*builder)->file_size(), (*builder)->file_crc()};
}

std::unique_ptr<Table> OpenOk(nutchfs::Env& env, const std::string& path) {
  auto table = Table::Open(env, path);
  INFO((table ? std::string("ok") : table.error().ToString()));
  REQUIRE(table.has_value());
  return std::move(*table);
}

// All rows from the first; the status the iterator ended with.
std::pair<Rows, Status> Scan(const Table& table) {
  Rows rows;
  auto it = table.NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) rows.emplace_back(it->key(), it->value());
  return {std::move(rows), it->status()};
}

void ExpectScan(const Table& table, const Rows& expected) {
  auto [rows, status] = Scan(table);
  INFO(status.ToString());
  CHECK(status.ok());
  CHECK(rows == expected);
}

// Url-like sorted keys with ~40-byte values; seeded, with hostile bytes mixed in.
Rows MakeRows(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::set<std::string> keys;
  while (keys.size() < n) {
    std::string key = "http://host" + std::to_string(rng() % 97) + ".example/p/" +
                      std::to_string(rng() % 1000000);
    if (rng() % 10 == 0) key += std::string("\0\xff\x01", 3);
    keys.insert(std::move(key));
  }
  Rows rows;
  for (const std::string& k : keys) {
    std::string value(20 + rng() % 40, '\0');
    for (char& c : value) c = static_cast<char>(rng());
    rows.emplace_back(k, std::move(value));
  }
  return rows;
}

Rows WithHugeRows(Rows rows) {
  rows.emplace_back(std::string("\0", 1), std::string(100000, '\xff'));
  rows.emplace_back(std::string(65536 + 7, 'h'), "after a 64 KiB+ key");
  rows.emplace_back(std::string(70000, 'h') + "\xff", std::string(70000, '\0'));
  rows.emplace_back(std::string(3, '\xff'), "");
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::string FileBytes(const std::string& path) {
  auto env = nutchfs::NewLocalEnv();
  auto bytes = nutchfs::ReadFileToString(*env, path);
  REQUIRE(bytes.has_value());
  return *bytes;
}

void CheckSeeks(const Table& table, const Rows& rows) {
  auto it = table.NewIterator();
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i);
    it->Seek(rows[i].first);
    REQUIRE(it->Valid());
    REQUIRE(it->key() == rows[i].first);
    REQUIRE(it->value() == rows[i].second);
    it->Seek(rows[i].first + std::string("\0", 1));  // between row i and row i+1
    if (i + 1 < rows.size()) {
      REQUIRE(it->Valid());
      REQUIRE(it->key() == rows[i + 1].first);
      it->Next();
      REQUIRE(it->Valid() == (i + 2 < rows.size()));
      if (it->Valid()) REQUIRE(it->key() == rows[i + 2].first);
    } else {
      REQUIRE_FALSE(it->Valid());
    }
    REQUIRE(it->status().ok());
  }
}

TEST_CASE("empty table", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string path = dir.File("empty.tbl");
  Built built = WriteTable(*env, path, {});
  CHECK(built.file_size == kBlockTrailerSize + kFooterSize);
  CHECK(built.file_crc == crc32c::Value(FileBytes(path)));
  auto table = OpenOk(*env, path);
  CHECK(table->num_records() == 0);
  CHECK(table->num_parts() == 1);
  CHECK(table->path(0) == path);
  auto [rows, status] = Scan(*table);
  CHECK(rows.empty());
  CHECK(status.ok());
  auto it = table->NewIterator();
  it->Seek("");
  CHECK_FALSE(it->Valid());
  CHECK(it->status().ok());
}

TEST_CASE("one record", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string path = dir.File("one.tbl");
  Rows rows = {{std::string("k\0\xff", 3), std::string("\0v\xff", 3)}};
  WriteTable(*env, path, rows);
  auto table = OpenOk(*env, path);
  CHECK(table->num_records() == 1);
  ExpectScan(*table, rows);
  auto it = table->NewIterator();
  it->Seek("");
  REQUIRE(it->Valid());
  CHECK(it->key() == rows[0].first);
  it->Next();
  CHECK_FALSE(it->Valid());
  CHECK(it->status().ok());
  CheckSeeks(*table, rows);
}

TEST_CASE("many records across many blocks with huge keys and values", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string path = dir.File("many.tbl");
  Rows rows = WithHugeRows(MakeRows(6000, 1));
  Built built = WriteTable(*env, path, rows);
  CHECK(built.file_size == std::filesystem::file_size(path));
  CHECK(built.file_crc == crc32c::Value(FileBytes(path)));
  CHECK(built.file_size > 20 * kTargetBlockSize);
  auto table = OpenOk(*env, path);
  CHECK(table->num_records() == rows.size());
  auto [got, status] = Scan(*table);
  CHECK(status.ok());
  CHECK(got == rows);
  CheckSeeks(*table, rows);
  auto it = table->NewIterator();
  it->Seek("");  // before the first key
  REQUIRE(it->Valid());
  CHECK(it->key() == rows.front().first);
  it->Seek(rows.back().first + "x");  // after the last key
  CHECK_FALSE(it->Valid());
  CHECK(it->status().ok());
  it->SeekToFirst();  // usable again after running off the end
  REQUIRE(it->Valid());
  CHECK(it->key() == rows.front().first);
}

// A file that counts the bytes read from it.
class CountingFile final : public nutchfs::RandomAccessFile {
 public:
  explicit CountingFile(std::unique_ptr<nutchfs::RandomAccessFile> file) : file_(std::move(file)) {}
  Result<std::string_view> Read(uint64_t offset, size_t n, char* scratch) const override {
    read_ += n;
    return file_->Read(offset, n, scratch);
  }
  uint64_t size() const override { return file_->size(); }
  const std::string& path() const override { return file_->path(); }
  uint64_t read() const { return read_; }

 private:
  std::unique_ptr<nutchfs::RandomAccessFile> file_;
  mutable uint64_t read_ = 0;
};

TEST_CASE("a seek reads its block alone, and so does the step into the next block", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string path = dir.File("sparse.tbl");
  const Rows rows = MakeRows(40000, 1);
  WriteTable(*env, path, rows);
  auto file = env->NewRandomAccessFile(path);
  REQUIRE(file.has_value());
  auto counting = std::make_unique<CountingFile>(std::move(*file));
  const CountingFile* reads = counting.get();
  auto table = Table::Open(std::move(counting));
  REQUIRE(table.has_value());
  REQUIRE((*table)->num_blocks() > 40);
  auto it = (*table)->NewIterator();
  // Seek to a row, then step across the end of its block, at spots far apart: each
  // costs its two blocks (and an index group the first time), not a read-ahead.
  const uint64_t opened = reads->read();
  uint64_t seeks = 0;
  for (size_t i = 1000; i < rows.size(); i += 8000, ++seeks) {
    it->Seek(rows[i].first);
    REQUIRE(it->Valid());
    const std::optional<uint64_t> block = it->BlockIndex();
    while (it->Valid() && it->BlockIndex() == block) it->Next();
    REQUIRE(it->Valid());
  }
  REQUIRE(it->status().ok());
  const uint64_t group_bytes = 128 * 64;  // an index group's entries, at most
  CHECK(reads->read() - opened <= seeks * (2 * (kTargetBlockSize + 1024) + group_bytes));
  // A scan from the first row reads ahead as before: every row, in few reads.
  auto [got, status] = Scan(**table);
  CHECK(status.ok());
  CHECK(got == rows);
}

TEST_CASE("a builder closes blocks at the target block size it was given", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const Rows rows = MakeRows(6000, 1);
  size_t largest_row = 0;
  for (const auto& [k, v] : rows) largest_row = std::max(largest_row, k.size() + v.size() + 15);
  for (size_t target : {size_t{4} << 10, size_t{8} << 10, kTargetBlockSize}) {
    INFO("target " << target);
    const std::string path = dir.File("t" + std::to_string(target) + ".tbl");
    auto builder = TableBuilder::Create(*env, path, target);
    REQUIRE(builder.has_value());
    for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
    REQUIRE((*builder)->Finish().ok());
    auto table = OpenOk(*env, path);
    REQUIRE(table->num_blocks() > 2);
    // Every block but the last reached the target, or stopped short of it only because
    // the next row would have taken it past.
    for (uint64_t i = 0; i + 1 < table->num_blocks(); ++i) {
      const uint64_t size = table->BlockHandleOf(i)->size;
      CHECK(size <= target);
      CHECK(size + largest_row > target);
    }
    auto [got, status] = Scan(*table);
    CHECK(status.ok());
    CHECK(got == rows);
  }
}

TEST_CASE("concurrent iterators over one table", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string path = dir.File("shared.tbl");
  Rows rows = MakeRows(4000, 2);
  WriteTable(*env, path, rows);
  auto table = OpenOk(*env, path);
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto [got, status] = Scan(*table);
      auto it = table->NewIterator();
      bool seeks_ok = true;
      for (size_t i = t; i < rows.size(); i += 37) {
        it->Seek(rows[i].first);
        seeks_ok = seeks_ok && it->Valid() && it->value() == rows[i].second;
      }
      ok[t] = status.ok() && got == rows && seeks_ok;
    });
  }
  for (auto& th : threads) th.join();
  CHECK(ok == std::vector<int>(4, 1));
}

TEST_CASE("keys must strictly increase", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto builder = TableBuilder::Create(*env, dir.File("order.tbl"));
  REQUIRE(builder.has_value());
  REQUIRE((*builder)->Add("b", "1").ok());
  CHECK((*builder)->Add("b", "2").IsInvalidArgument());
  CHECK((*builder)->Add("a", "3").IsInvalidArgument());
  CHECK((*builder)->Add(std::string("b\0", 2), "4").ok());
  REQUIRE((*builder)->Finish().ok());
  CHECK((*builder)->Add("c", "5").IsInvalidArgument());
  CHECK((*builder)->Finish().IsInvalidArgument());
  auto table = OpenOk(*env, dir.File("order.tbl"));
  CHECK(table->num_records() == 2);
}

TEST_CASE("abandoned builder leaves no valid table", "[table][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string path = dir.File("abandoned.tbl");
  {
    auto builder = TableBuilder::Create(*env, path);
    REQUIRE(builder.has_value());
    for (const auto& [k, v] : MakeRows(3000, 3)) REQUIRE((*builder)->Add(k, v).ok());
  }
  auto table = Table::Open(*env, path);
  REQUIRE_FALSE(table.has_value());
  CHECK(table.error().IsCorruption());
  CHECK_THAT(table.error().message(), Catch::Contains(path));
}

TEST_CASE("missing file is an error, not Corruption", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto table = Table::Open(*env, dir.File("absent.tbl"));
  REQUIRE_FALSE(table.has_value());
  CHECK_FALSE(table.error().IsCorruption());
  CHECK_THAT(table.error().message(), Catch::Contains("absent.tbl"));
}

void ExpectCorruptionMessage(const Status& s, const std::string& path) {
  INFO(s.ToString());
  REQUIRE(s.IsCorruption());
  CHECK_THAT(s.message(), Catch::StartsWith(path + ": ") && Catch::Contains("at offset "));
}

// After a flip: the table either fails to open, or every full scan ends in Corruption;
// whatever is returned before that, and whatever a seek returns, is the original data.
void CheckFlipped(nutchfs::Env& env, const std::string& path, const Rows& rows) {
  auto table = Table::Open(env, path);
  if (!table) return ExpectCorruptionMessage(table.error(), path);
  auto [got, status] = Scan(**table);
  REQUIRE(got.size() <= rows.size());
  REQUIRE(std::equal(got.begin(), got.end(), rows.begin()));
  ExpectCorruptionMessage(status, path);
  auto it = (*table)->NewIterator();
  for (size_t i = 0; i < rows.size(); i += rows.size() / 8 + 1) {
    it->Seek(rows[i].first);
    if (it->Valid()) {
      REQUIRE(it->key() == rows[i].first);
      REQUIRE(it->value() == rows[i].second);
    } else {
      ExpectCorruptionMessage(it->status(), path);
    }
  }
}

TEST_CASE("a flipped byte anywhere is detected, never wrong data", "[table][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string path = dir.File("flip.tbl");
  Rows rows = MakeRows(2500, 4);
  Built built = WriteTable(*env, path, rows);
  REQUIRE(built.file_size > 3 * kTargetBlockSize);
  for (uint64_t offset = 0; offset < built.file_size; offset += 97) {
    INFO("flipped byte at " << offset);
    testutil::FlipByte(path, offset);
    CheckFlipped(*env, path, rows);
    testutil::FlipByte(path, offset);
  }
  for (uint64_t back = 1; back <= kFooterSize + kBlockTrailerSize; ++back) {
    INFO("flipped byte at " << built.file_size - back);
    testutil::FlipByte(path, built.file_size - back);
    CheckFlipped(*env, path, rows);
    testutil::FlipByte(path, built.file_size - back);
  }
  ExpectScan(*OpenOk(*env, path), rows);
}

TEST_CASE("a truncated table fails to open", "[table][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string path = dir.File("cut.tbl");
  Built built = WriteTable(*env, path, MakeRows(1000, 5));
  std::set<uint64_t, std::greater<>> sizes;  // longest first: each cut shortens the same file
  for (uint64_t n = 0; n < built.file_size; n += 61) sizes.insert(n);
  for (uint64_t n = 1; n <= 2 * kFooterSize && n <= built.file_size; ++n) {
    sizes.insert(built.file_size - n);
  }
  for (uint64_t n : sizes) {
    INFO("truncated to " << n << " of " << built.file_size);
    testutil::TruncateFile(path, n);
    auto table = Table::Open(*env, path);
    REQUIRE_FALSE(table.has_value());
    ExpectCorruptionMessage(table.error(), path);
  }
}

TEST_CASE("bytes appended to a table are detected", "[table][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string path = dir.File("long.tbl");
  WriteTable(*env, path, MakeRows(100, 6));
  std::string bytes = FileBytes(path);
  REQUIRE(nutchfs::WriteFileAtomically(*env, path, bytes + bytes.substr(bytes.size() - 8)).ok());
  auto table = Table::Open(*env, path);
  REQUIRE_FALSE(table.has_value());
  ExpectCorruptionMessage(table.error(), path);
}

uint64_t IndexSize(const std::string& path) {
  std::string file = FileBytes(path);
  return DecodeFixed64(file.data() + file.size() - kFooterSize + 8);
}

// Rewrites the only data block of a one-block table with edit applied to its bytes and a
// valid trailer, so that only the block decoder can notice.
void RewriteOnlyBlock(const std::string& path, size_t pos, char byte) {
  auto env = nutchfs::NewLocalEnv();
  std::string file = FileBytes(path);
  uint64_t index_offset = DecodeFixed64(file.data() + file.size() - kFooterSize);
  std::string block = file.substr(0, index_offset - kBlockTrailerSize);
  block[pos] = byte;
  std::string rewritten = block;
  AppendBlockTrailer(block, &rewritten);
  rewritten += file.substr(index_offset);
  REQUIRE(nutchfs::WriteFileAtomically(*env, path, rewritten).ok());
}

TEST_CASE("a malformed block with a valid checksum is Corruption", "[table][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string path = dir.File("crafted.tbl");
  Rows rows;
  for (int i = 0; i < 100; ++i) rows.emplace_back("k" + std::to_string(100 + i), "v");
  std::string last = rows.back().first;  // "k199": the block ends "...9v"
  SECTION("record header out of bounds") {
    WriteTable(*env, path, rows);
    RewriteOnlyBlock(path, 8, '\x7f');  // second record's shared length: 127 > 4
    auto table = OpenOk(*env, path);
    auto [got, status] = Scan(*table);
    CHECK(got == Rows(rows.begin(), rows.begin() + 1));
    ExpectCorruptionMessage(status, path);
    CHECK_THAT(status.message(), Catch::Contains("malformed record") &&
                                     Catch::Contains("at offset 8 in block at offset 0"));
  }
  SECTION("record header out of bounds, met by rows moved to a table as stored") {
    WriteTable(*env, path, rows);
    RewriteOnlyBlock(path, 8, '\x7f');
    auto table = OpenOk(*env, path);
    auto it = table->NewIterator();
    it->SeekToFirst();
    REQUIRE(it->Valid());
    const ProgressFn no_progress;  // the writer keeps a reference
    DeferredSyncs syncs;  // the writer's, for a Finish this test never reaches
    auto copy = TableWriter::Create(*env, dir.path(), "copy.tbl", 4096, "copy", 0, no_progress,
                                    syncs);
    REQUIRE(copy.has_value());
    REQUIRE((*copy)->Add(it->key(), it->value()).ok());
    uint64_t moved = 0;
    // The sink parses the records; a malformed one is the source's corruption, reported
    // by the iterator with its file and block.
    CHECK(it->MoveRowsInBlock(std::nullopt, copy->get(), &moved).ok());
    CHECK_FALSE(it->Valid());
    ExpectCorruptionMessage(it->status(), path);
    CHECK_THAT(it->status().message(),
               Catch::Contains("malformed record") && Catch::Contains("block at offset 0"));
  }
  SECTION("last key differs from the index") {
    Built built = WriteTable(*env, path, rows);
    uint64_t block_size = built.file_size - kFooterSize - 2 * kBlockTrailerSize - IndexSize(path);
    RewriteOnlyBlock(path, block_size - 2, 'A');  // "k199" becomes "k19A"
    auto table = OpenOk(*env, path);
    auto [got, status] = Scan(*table);
    CHECK(got.size() == rows.size());
    ExpectCorruptionMessage(status, path);
    auto it = table->NewIterator();
    it->Seek(last);
    CHECK_FALSE(it->Valid());
    ExpectCorruptionMessage(it->status(), path);
  }
}

TEST_CASE("blocks copied whole into another table read back the same", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  Rows rows;
  for (int i = 0; i < 5000; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "key%06d", 2 * i);
    rows.emplace_back(key, std::string(40 + i % 50, static_cast<char>('a' + i % 26)));
  }
  WriteTable(*env, dir.File("a.tbl"), rows);
  auto a = OpenOk(*env, dir.File("a.tbl"));
  auto builder = TableBuilder::Create(*env, dir.File("b.tbl"));
  REQUIRE(builder.has_value());
  // Copy every other block whole; add the others row by row, plus one extra row (an odd
  // key) before each copied block, so copied blocks follow a partly filled block.
  Rows expected;
  auto it = a->NewIterator();
  int block = 0, copied = 0;
  it->SeekToFirst();
  while (it->Valid()) {
    std::optional<RawBlock> raw = it->CurrentBlock();
    REQUIRE(raw.has_value());
    if (block++ % 2 == 1) {
      std::string extra(raw->first_key);
      extra.back() = static_cast<char>(extra.back() - 1);
      REQUIRE((*builder)->Add(extra, "x").ok());
      expected.emplace_back(extra, "x");
      REQUIRE((*builder)->AddBlock(*raw).ok());
      for (uint64_t r = 0; r < raw->records; ++r) {
        expected.push_back(rows[expected.size() - 1 - copied]);
      }
      ++copied;
      it->SkipBlock();
      continue;
    }
    do {
      REQUIRE((*builder)->Add(it->key(), it->value()).ok());
      expected.emplace_back(it->key(), it->value());
      it->Next();
    } while (it->Valid() && !it->CurrentBlock());
  }
  REQUIRE(it->status().ok());
  REQUIRE(copied > 3);
  REQUIRE((*builder)->Finish().ok());
  auto b = OpenOk(*env, dir.File("b.tbl"));
  auto [got, status] = Scan(*b);
  CHECK(status.ok());
  CHECK(b->num_records() == expected.size());
  CHECK(got == expected);
}

// Groups of 1 to max_group rows by a 4-byte prefix ("0000", "0003", ...), then keys of
// varying length, values of 0 to max_value - 1 bytes.
Rows PrefixGroups(std::mt19937& rng, int groups, size_t max_group, size_t max_value) {
  Rows rows;
  for (int g = 0; g < groups; ++g) {
    char prefix[8];
    std::snprintf(prefix, sizeof(prefix), "%04d", 3 * g);
    std::set<std::string> keys;
    const size_t n = 1 + rng() % max_group;
    while (keys.size() < n) {
      keys.insert(prefix + std::string(rng() % 30, 'k') + std::to_string(rng() % 1000));
    }
    for (const std::string& k : keys) rows.emplace_back(k, std::string(rng() % max_value, 'v'));
  }
  return rows;
}

// Forwards every call but the moves of rows sharing a prefix, so that the iterator's
// generic versions run.
class Forwarding final : public Iterator {
 public:
  explicit Forwarding(Iterator& it) : it_(it) {}
  bool Valid() const override { return it_.Valid(); }
  void SeekToFirst() override { it_.SeekToFirst(); }
  void Seek(std::string_view target) override { it_.Seek(target); }
  void Next() override { it_.Next(); }
  std::string_view key() const override { return it_.key(); }
  std::string_view value() const override { return it_.value(); }
  Status status() const override { return it_.status(); }

 private:
  Iterator& it_;
};

TEST_CASE("a skip moves past the rows that share a key prefix, across blocks", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  // With 128-byte blocks, groups start and end anywhere in a block and span up to a dozen
  // blocks.
  std::mt19937 rng(11);
  const Rows rows = PrefixGroups(rng, 60, 40, 20);
  const std::string path = dir.File("t.tbl");
  WriteTable(*env, path, rows, /*target_block_size=*/128);
  auto table = OpenOk(*env, path);
  REQUIRE(table->num_blocks() > 100);
  auto it = table->NewIterator();
  Forwarding generic(*it);
  // The first row after i of another prefix.
  auto group_end = [&rows](size_t i) {
    size_t end = i + 1;
    while (end < rows.size() && rows[end].first.starts_with(rows[i].first.substr(0, 4))) ++end;
    return end;
  };
  for (Iterator* walker : {static_cast<Iterator*>(it.get()), static_cast<Iterator*>(&generic)}) {
    // Every row a skip can start from: walk to it, skip, check where the skip stopped.
    for (size_t i = 0; i < rows.size(); i += 1 + i % 3) {
      INFO("from row " << i);
      walker->Seek(rows[i].first);
      REQUIRE(walker->Valid());
      const size_t end = group_end(i);
      CHECK(walker->SkipRowsSharing(4) == end - i);
      REQUIRE(walker->Valid() == (end < rows.size()));
      if (end < rows.size()) CHECK(walker->key() == rows[end].first);
      CHECK(walker->status().ok());
    }
    // A scan from the first row that skips at every other group still counts every record.
    walker->SeekToFirst();
    size_t at = 0, groups = 0;
    while (walker->Valid()) {
      REQUIRE(walker->key() == rows[at].first);
      if (groups++ % 2 == 0) {
        const size_t end = group_end(at);
        REQUIRE(walker->SkipRowsSharing(4) == end - at);
        at = end;
      } else {
        walker->Next();
        ++at;
      }
    }
    CHECK(walker->status().ok());
    CHECK(at == rows.size());
  }
}

TEST_CASE("rows copied as stored give the same table file as rows added one by one", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937 rng(23);
  const Rows rows = PrefixGroups(rng, 80, 30, 60);
  // The rows in blocks of one size; moved into blocks of every size, up to random limits
  // within their blocks: runs stop before records that do not fit and go on into the
  // next block.
  auto write = [&](const std::string& path, size_t target) {
    auto builder = TableBuilder::Create(*env, path, target);
    REQUIRE(builder.has_value());
    for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
    REQUIRE((*builder)->Finish().ok());
  };
  const std::string a_path = dir.File("a.tbl");
  write(a_path, 300);
  auto a = OpenOk(*env, a_path);
  auto it = a->NewIterator();
  Forwarding generic(*it);
  for (size_t target : {size_t{64}, size_t{200}, size_t{300}, size_t{1000}, size_t{32 << 10}}) {
    INFO("target block size " << target);
    const std::string c_path = dir.File("c" + std::to_string(target) + ".tbl");
    write(c_path, target);  // rows added one by one
    for (Iterator* walker : {static_cast<Iterator*>(it.get()), static_cast<Iterator*>(&generic)}) {
      const std::string b_name = "b" + std::to_string(target) + ".tbl";
      const ProgressFn no_progress;  // the writer keeps a reference
      DeferredSyncs syncs;  // syncs and closes the copy
      auto b = TableWriter::Create(*env, dir.path(), b_name, target, "copy", 0, no_progress,
                                   syncs);
      REQUIRE(b.has_value());
      uint64_t added = 0;
      walker->SeekToFirst();
      while (walker->Valid()) {
        REQUIRE((*b)->Add(walker->key(), walker->value()).ok());
        ++added;
        if (rng() % 4 == 0) {
          walker->Next();
          continue;
        }
        std::optional<std::string_view> limit;  // none, or a key of a row after this one
        if (rng() % 3 != 0) limit = rows[std::min(rows.size() - 1, added + rng() % 12)].first;
        uint64_t moved = 0;
        Status s = walker->MoveRowsInBlock(limit, b->get(), &moved);
        INFO(s.ToString());
        REQUIRE(s.ok());
        added += moved;
      }
      REQUIRE(walker->status().ok());
      CHECK(added == rows.size());
      Result<TableFile> file = (*b)->Finish();
      REQUIRE(file.has_value());
      REQUIRE(syncs.Wait().ok());
      CHECK(file->records == rows.size());
      CHECK(FileBytes(dir.File(b_name)) == FileBytes(c_path));
    }
  }
}

TEST_CASE("rows moved within their block stop below the limit and at the block's end",
          "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::mt19937 rng(31);
  const Rows rows = PrefixGroups(rng, 60, 20, 30);
  const std::string path = dir.File("t.tbl");
  WriteTable(*env, path, rows, /*target_block_size=*/128);
  auto table = OpenOk(*env, path);
  std::vector<uint64_t> block_of;  // each row's block
  auto it = table->NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) block_of.push_back(*it->BlockIndex());
  REQUIRE(it->status().ok());
  REQUIRE(block_of.size() == rows.size());
  REQUIRE(table->num_blocks() > 20);

  // The moved rows go to a table of another block size, as stored runs.
  const ProgressFn no_progress;  // the writer keeps a reference
  DeferredSyncs syncs;  // syncs and closes the copy
  auto copy = TableWriter::Create(*env, dir.path(), "copy.tbl", 200, "copy", 0, no_progress,
                                  syncs);
  REQUIRE(copy.has_value());
  size_t moves = 0, i = 0;
  for (it->SeekToFirst(); it->Valid(); ++moves) {
    REQUIRE(i < rows.size());
    REQUIRE(std::string(it->key()) == rows[i].first);
    REQUIRE((*copy)->Add(it->key(), it->value()).ok());
    std::optional<std::string> limit;  // none, a row's key or a key just after one
    if (rng() % 4 != 0) {
      limit = rows[std::min(rows.size() - 1, i + 1 + rng() % 12)].first;
      if (rng() % 2 == 0) limit->push_back('\0');
    }
    size_t stop = i + 1;
    while (stop < rows.size() && block_of[stop] == block_of[i] &&
           (!limit || rows[stop].first < *limit)) {
      ++stop;
    }
    INFO("from row " << i << ", limit " << (limit ? *limit : "none"));
    uint64_t moved = 0;
    REQUIRE(it->MoveRowsInBlock(limit ? std::optional<std::string_view>(*limit) : std::nullopt,
                                copy->get(), &moved)
                .ok());
    CHECK(moved == stop - i - 1);
    i = stop;
  }
  REQUIRE(it->status().ok());
  CHECK(i == rows.size());
  CHECK(moves < rows.size() / 2);
  Result<TableFile> file = (*copy)->Finish();
  REQUIRE(file.has_value());
  REQUIRE(syncs.Wait().ok());
  CHECK(file->records == rows.size());
  auto [got, status] = Scan(*OpenOk(*env, dir.File("copy.tbl")));
  REQUIRE(status.ok());
  CHECK(got == rows);
}

TEST_CASE("stored rows must follow the key added last and be well formed", "[table][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  // Records of "k1", "k2", "k3" as stored after "k0": shared 1, unshared 1, value 1.
  auto stored = [](char c) { return std::string("\x01\x01\x01", 3) + c + "v"; };
  const std::string good = stored('1') + stored('2') + stored('3');
  auto fresh = [&](const std::string& name) {
    auto b = TableBuilder::Create(*env, dir.File(name), 4096);
    REQUIRE(b.has_value());
    REQUIRE((*b)->Add("k0", "v").ok());
    return std::move(*b);
  };
  auto status = [](const Result<StoredRun>& run) { return run ? Status::OK() : run.error(); };
  SECTION("a run after its key reads back") {
    auto b = fresh("ok.tbl");
    Result<StoredRun> run = b->AddStoredRun("k0", good, std::nullopt);
    REQUIRE(run.has_value());
    CHECK(run->rows == 3);
    CHECK(run->bytes == good.size());
    CHECK(run->last_key == "k3");
    REQUIRE(b->Finish().ok());
    ExpectScan(*OpenOk(*env, dir.File("ok.tbl")),
               {{"k0", "v"}, {"k1", "v"}, {"k2", "v"}, {"k3", "v"}});
  }
  SECTION("a run after another key is refused") {
    auto b = fresh("other.tbl");
    CHECK(status(b->AddStoredRun("k", good, std::nullopt)).IsInvalidArgument());
    CHECK(b->num_records() == 1);
  }
  SECTION("a run before any row is refused") {
    auto b = TableBuilder::Create(*env, dir.File("empty.tbl"), 4096);
    REQUIRE(b.has_value());
    CHECK(status((*b)->AddStoredRun("", good, std::nullopt)).IsInvalidArgument());
  }
  SECTION("a key out of order is Corruption after the rows before it") {
    auto b = fresh("order.tbl");
    // "k2", then "k1": shared 1, "1" is below "2".
    const std::string bad = good.substr(5, 5) + good.substr(0, 5);
    Status s = status(b->AddStoredRun("k0", bad, std::nullopt));
    CHECK(s.IsCorruption());
    CHECK_THAT(s.message(), Catch::Contains("order.tbl") && Catch::Contains("at offset 5"));
    CHECK(b->num_records() == 2);
  }
  SECTION("a cut record is Corruption") {
    auto b = fresh("cut.tbl");
    Status s = status(b->AddStoredRun("k0", good.substr(0, 14), std::nullopt));
    CHECK(s.IsCorruption());
    CHECK_THAT(s.message(), Catch::Contains("runs past") && Catch::Contains("at offset 10"));
  }
  SECTION("the default sink decodes the rows, and refuses the same faults") {
    testutil::RowCollector rows;
    REQUIRE(status(rows.AddStoredRun("k0", good, std::nullopt)).ok());
    CHECK(rows.rows == Rows{{"k1", "v"}, {"k2", "v"}, {"k3", "v"}});
    CHECK(status(rows.AddStoredRun("k0", good.substr(5, 5) + good.substr(0, 5), std::nullopt))
              .IsCorruption());
    CHECK(status(rows.AddStoredRun("k0", good.substr(0, 12), std::nullopt)).IsCorruption());
  }
}

TEST_CASE("stored rows are taken up to a limit, by the table builder as by the default sink",
          "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  // Rows after "a/0": keys sharing prefixes of every length with the limits below.
  const Rows after = {{"a/1", "v1"}, {"a/10", "v2"}, {"a/2", "v3"}, {"a/2x", "v4"},
                      {"b", "v5"},   {"b/1", "v6"},  {"c", "v7"}};
  std::string records;
  std::vector<size_t> offsets;  // where each row of `after` starts in records, then the end
  {
    BlockBuilder block;
    block.Add("a/0", "v0");
    const size_t first = block.size();
    for (const auto& [k, v] : after) {
      offsets.push_back(block.size() - first);
      block.Add(k, v);
    }
    offsets.push_back(block.size() - first);
    const std::string_view bytes = block.Finish();
    records.assign(bytes.substr(first, block.size() - first));
  }
  // Every limit from below the first row to above the last, including each row's own key,
  // the keys just above and below it, and prefixes of it.
  std::vector<std::string> limits = {"", "a/0", "a/00", "a/1", "a/1\x01", "a/10", "a/100",
                                     "a/11", "a/2", "a/20", "a/2x", "a/2y", "a/3", "b", "b/",
                                     "b/1", "b/2", "c", "c\x01", "d"};
  for (size_t target : {size_t{4096}, size_t{12}}) {  // one block, or a block every row or two
    for (const std::string& limit : limits) {
      INFO("limit '" << limit << "', target block size " << target);
      size_t below = 0;
      while (below < after.size() && after[below].first < limit) ++below;
      const std::string name =
          "limit" + std::to_string(target) + "-" + std::to_string(&limit - &limits[0]) + ".tbl";
      auto b = TableBuilder::Create(*env, dir.File(name), target);
      REQUIRE(b.has_value());
      REQUIRE((*b)->Add("a/0", "v0").ok());
      Result<StoredRun> run = (*b)->AddStoredRun("a/0", records, limit);
      REQUIRE(run.has_value());
      CHECK(run->rows == below);
      const std::string run_last(run->last_key);  // a view until the builder's next call
      CHECK(run_last == (below == 0 ? "" : after[below - 1].first));
      // The run ends where the first row at or above the limit starts: the rest, taken
      // with no limit, completes the table.
      REQUIRE(run->bytes == offsets[below]);
      const std::string_view rest = std::string_view(records).substr(run->bytes);
      const std::string last(below == 0 ? "a/0" : after[below - 1].first);
      Result<StoredRun> more = (*b)->AddStoredRun(last, rest, std::nullopt);
      REQUIRE(more.has_value());
      CHECK(more->rows == after.size() - below);
      REQUIRE((*b)->Finish().ok());
      Rows all = {{"a/0", "v0"}};
      all.insert(all.end(), after.begin(), after.end());
      ExpectScan(*OpenOk(*env, dir.File(name)), all);

      testutil::RowCollector sink;
      Result<StoredRun> by_default = sink.AddStoredRun("a/0", records, limit);
      REQUIRE(by_default.has_value());
      CHECK(by_default->rows == below);
      CHECK(by_default->bytes == run->bytes);
      CHECK(by_default->last_key == run_last);
      CHECK(sink.rows == Rows(after.begin(), after.begin() + static_cast<long>(below)));
    }
  }
}

TEST_CASE("a skip to the end of a block checks the block's last key against the index",
          "[table][fault]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string path = dir.File("crafted.tbl");
  Rows rows;
  for (int i = 0; i < 100; ++i) rows.emplace_back("k" + std::to_string(100 + i), "v");
  Built built = WriteTable(*env, path, rows);
  const uint64_t block_size =
      built.file_size - kFooterSize - 2 * kBlockTrailerSize - IndexSize(path);
  // The last record is shared 3, unshared 1, value 1, "9", "v": sharing 2 bytes instead,
  // its key is "k19", shorter than the index's "k199".
  RewriteOnlyBlock(path, block_size - 5, '\x02');
  auto table = OpenOk(*env, path);
  auto it = table->NewIterator();
  it->SeekToFirst();
  REQUIRE(it->Valid());
  CHECK(it->SkipRowsSharing(2) == rows.size());
  CHECK_FALSE(it->Valid());
  ExpectCorruptionMessage(it->status(), path);
  CHECK_THAT(it->status().message(), Catch::Contains("last key differs from the index"));
  auto [got, status] = Scan(*table);  // a full scan finds the key out of order
  ExpectCorruptionMessage(status, path);
}

TEST_CASE("a copied block out of key order is refused", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  WriteTable(*env, dir.File("a.tbl"), {{"b", "1"}, {"c", "2"}});
  auto a = OpenOk(*env, dir.File("a.tbl"));
  auto it = a->NewIterator();
  it->SeekToFirst();
  std::optional<RawBlock> raw = it->CurrentBlock();
  REQUIRE(raw.has_value());
  CHECK(raw->records == 2);
  auto builder = TableBuilder::Create(*env, dir.File("b.tbl"));
  REQUIRE(builder.has_value());
  REQUIRE((*builder)->Add("b", "0").ok());
  CHECK((*builder)->AddBlock(*raw).IsInvalidArgument());
}

// Within a block the builder's order check is the comparison it encodes by; the first key
// of a block is checked against the last of the block before. Each refusal leaves the
// table as it was: the rows added before and after it read back.
TEST_CASE("a key not greater than the one before is refused in a block and across blocks",
          "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string path = dir.File("t.tbl");
  auto builder = TableBuilder::Create(*env, path, /*target_block_size=*/256);
  REQUIRE(builder.has_value());
  TableBuilder& b = **builder;
  Rows added;
  auto add = [&](const std::string& key, size_t value_size = 8) {
    const std::string value(value_size, 'v');
    Status s = b.Add(key, value);
    if (s.ok()) added.emplace_back(key, value);
    return s;
  };
  REQUIRE(add("key-b").ok());
  for (const char* bad : {"key-b", "key-", "key-a", "key-aaaaaaaaaaaa", "a", ""}) {
    INFO(bad);
    Status s = add(bad);
    CHECK(s.IsInvalidArgument());
    CHECK_THAT(s.ToString(), Catch::Contains("keys out of order"));
  }
  REQUIRE(add(std::string("key-b\x01")).ok());  // longer, with the last key as its prefix
  REQUIRE(add("key-c").ok());
  REQUIRE(b.file_size() == 0);
  REQUIRE(add("key-d", 300).ok());  // fills the block, which is written at once
  REQUIRE(b.file_size() > 0);
  CHECK(add("key-d").IsInvalidArgument());  // the next block's first key
  CHECK(add("key").IsInvalidArgument());
  CHECK(add("key-c").IsInvalidArgument());
  REQUIRE(add("key-e").ok());
  REQUIRE(b.Finish().ok());
  auto [rows, status] = Scan(*OpenOk(*env, path));
  CHECK(status.ok());
  CHECK(rows == added);
}

}  // namespace
}  // namespace webdb

namespace webdb {
namespace {

uint64_t FooterFileId(nutchfs::Env& env, const std::string& path) {
  return OpenOk(env, path)->footer(0).file_id;
}

TEST_CASE("a table's file id follows from its content", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const Rows rows = MakeRows(3000, 7);
  WriteTable(*env, dir.File("a.tbl"), rows);
  WriteTable(*env, dir.File("b.tbl"), rows);
  Rows other = rows;
  other[1500].second[0] ^= 1;  // same size, same keys, one value bit apart
  WriteTable(*env, dir.File("c.tbl"), other);
  const uint64_t a = FooterFileId(*env, dir.File("a.tbl"));
  CHECK(a != 0);
  CHECK(FileBytes(dir.File("a.tbl")) == FileBytes(dir.File("b.tbl")));
  CHECK(FooterFileId(*env, dir.File("c.tbl")) != a);
  const std::string bytes = FileBytes(dir.File("a.tbl"));
  const size_t before_footer = bytes.size() - kFooterSize;
  const uint64_t index_offset = DecodeFixed64(bytes.data() + before_footer);
  const uint64_t index_size = DecodeFixed64(bytes.data() + before_footer + 8);
  CHECK(a == TableFileId(crc32c::Value(bytes.data(), before_footer),
                         crc32c::Value(bytes.data() + index_offset, index_size)));
}

TEST_CASE("tables of format version 1 (no file id) are still read", "[table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string path = dir.File("v1.tbl");
  const Rows rows = MakeRows(2000, 8);
  WriteTable(*env, path, rows);
  // The same file with the 48-byte footer of version 1.
  std::string bytes = FileBytes(path);
  const std::string v2 = bytes.substr(bytes.size() - kFooterSize);
  bytes.resize(bytes.size() - kFooterSize);
  std::string v1 = v2.substr(0, 32);
  PutFixed32(&v1, 1);
  PutFixed32(&v1, crc32c::Mask(crc32c::Value(v1)));
  PutFixed64(&v1, kTableMagic);
  REQUIRE(nutchfs::WriteFileAtomically(*env, path, bytes + v1).ok());
  auto table = OpenOk(*env, path);
  CHECK(table->footer(0).version == 1);
  CHECK(table->footer(0).file_id == 0);
  ExpectScan(*table, rows);
  SECTION("a version 1 footer with a bad crc is corruption") {
    testutil::FlipByte(path, bytes.size() + 20);
    auto broken = Table::Open(*env, path);
    REQUIRE_FALSE(broken.has_value());
    CHECK_THAT(broken.error().message(), Catch::Contains("footer checksum mismatch"));
  }
}

}  // namespace
}  // namespace webdb
