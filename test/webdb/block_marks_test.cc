// BlockMarks: a notice marks exactly the blocks whose join-key range can include it, and
// never misses a block holding a row with that join key; notices from several threads at
// once, each reading the index through a reader of its own, mark what one thread would.
#include "webdb/block_marks.h"

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "nutchfs/env.h"
#include "test/util/temp_dir.h"
#include "webdb/record.h"
#include "webdb/table_builder.h"

namespace webdb {
namespace {

// linksByURL-like keys: url + 0x00 + 16-byte from. A few urls have so many links that
// they span several blocks.
std::vector<std::string> Keys() {
  std::vector<std::string> keys;
  for (int u = 0; u < 400; ++u) {
    const std::string url = "http://host-" + std::to_string(1000 + u) + ".example/";
    const int links = u % 97 == 3 ? 900 : 1 + u % 7;
    for (int f = 0; f < links; ++f) {
      std::string from(16, '\0');
      from[14] = static_cast<char>(f >> 8);
      from[15] = static_cast<char>(f & 0xff);
      keys.push_back(url + std::string(1, '\0') + from);
    }
  }
  return keys;
}

struct Fixture {
  testutil::TempDir dir;
  std::unique_ptr<nutchfs::Env> env = nutchfs::NewLocalEnv();
  std::unique_ptr<Table> table;
  std::map<std::string, std::set<uint64_t>> blocks_of_url;  // where each url's rows are
  std::vector<std::string> joins;  // the join key of each block's last key

  // Blocks of 1 KiB: several groups of the index (Table::kIndexGroup blocks each).
  Fixture() {
    const std::string path = dir.File("links.tbl");
    auto builder = TableBuilder::Create(*env, path, /*target_block_size=*/1024);
    REQUIRE(builder);
    for (const std::string& k : Keys()) REQUIRE((*builder)->Add(k, std::string(200, 'v')).ok());
    REQUIRE((*builder)->Finish().ok());
    auto t = Table::Open(*env, path);
    REQUIRE(t);
    table = std::move(*t);
    auto it = table->NewIterator();
    uint64_t block = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (auto raw = it->CurrentBlock()) block = raw->index;
      blocks_of_url[std::string(UrlOfLinkUrlKey(it->key()))].insert(block);
    }
    REQUIRE(it->status().ok());
    REQUIRE(table->num_blocks() > 3 * Table::kIndexGroup);
    for (uint64_t b = 0; b < table->num_blocks(); ++b) {
      joins.emplace_back(UrlOfLinkUrlKey(*table->BlockLastKey(b)));
    }
  }
};

TEST_CASE("a notice marks every block holding its join key, and only blocks that may",
          "[block_marks]") {
  Fixture f;
  const uint64_t n = f.table->num_blocks();
  auto join = [&](uint64_t b) { return f.joins[b]; };
  std::vector<std::string> notices;
  for (const auto& [url, blocks] : f.blocks_of_url) notices.push_back(url);
  notices.push_back("http://a-before-all/");
  notices.push_back("http://host-1100.example/x");  // between two urls
  notices.push_back("http://z-after-all/");
  for (const std::string& key : notices) {
    BlockMarks marks(*f.table, UrlOfLinkUrlKey);
    marks.Notice(key);
    INFO(key);
    for (uint64_t b = 0; b < n; ++b) {
      const bool may_hold = (b == 0 || join(b - 1) <= key) && key <= join(b);
      CHECK(marks.marked(b) == may_hold);
    }
    auto held = f.blocks_of_url.find(key);
    if (held != f.blocks_of_url.end()) {
      for (uint64_t b : held->second) CHECK(marks.marked(b));
    }
  }
  BlockMarks none(*f.table, UrlOfLinkUrlKey);
  for (uint64_t b = 0; b <= n; ++b) CHECK_FALSE(none.marked(b));
}

TEST_CASE("notices in any order mark the union of their blocks", "[block_marks]") {
  Fixture f;
  std::vector<std::string> urls;
  for (const auto& [url, blocks] : f.blocks_of_url) urls.push_back(url);
  std::mt19937 rng(5);
  std::shuffle(urls.begin(), urls.end(), rng);
  urls.resize(30);
  BlockMarks together(*f.table, UrlOfLinkUrlKey);
  std::set<uint64_t> expected;
  for (const std::string& url : urls) {
    together.Notice(url);
    BlockMarks alone(*f.table, UrlOfLinkUrlKey);
    alone.Notice(url);
    for (uint64_t b = 0; b < f.table->num_blocks(); ++b) {
      if (alone.marked(b)) expected.insert(b);
    }
  }
  CHECK(together.notices() == urls.size());
  for (uint64_t b = 0; b < f.table->num_blocks(); ++b) {
    CHECK(together.marked(b) == (expected.count(b) > 0));
  }
}

TEST_CASE("notices from two threads at once mark the blocks one thread would", "[block_marks]") {
  Fixture f;
  std::vector<std::string> urls;
  for (const auto& [url, blocks] : f.blocks_of_url) urls.push_back(url);
  // Each thread notices its half in key order, as a stage's key ranges do.
  const size_t half = urls.size() / 2;
  BlockMarks shared(*f.table, UrlOfLinkUrlKey);
  std::thread low([&] {
    for (size_t i = 0; i < half; ++i) shared.Notice(urls[i]);
  });
  std::thread high([&] {
    for (size_t i = half; i < urls.size(); ++i) shared.Notice(urls[i]);
  });
  low.join();
  high.join();
  BlockMarks alone(*f.table, UrlOfLinkUrlKey);
  for (const std::string& url : urls) alone.Notice(url);
  CHECK(shared.notices() == urls.size());
  for (uint64_t b = 0; b < f.table->num_blocks(); ++b) CHECK(shared.marked(b) == alone.marked(b));
}

}  // namespace
}  // namespace webdb
