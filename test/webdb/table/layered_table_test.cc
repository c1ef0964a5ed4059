// The merged view of a base and its runs (NewLayeredIterator, LayeredTable) against a
// plain map of what the layers make: scans, seeks forward and backward, key ranges, and the
// moves over stored blocks and rows a merge makes, which must hand out the same rows;
// malformed run rows are Corruption naming the run.
#include "webdb/table/layered_table.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "nutchfs/env.h"
#include "test/util/row_util.h"
#include "test/util/temp_dir.h"
#include "webdb/table/table.h"

namespace webdb {
namespace {

using Rows = std::map<std::string, std::string>;
using testutil::WriteSmallTable;

std::string Key(std::mt19937& rng) {
  // Keys sharing prefixes, so that runs of rows sharing n bytes exist.
  return "k" + std::to_string(rng() % 40) + "/" + std::to_string(rng() % 30);
}

// A base and `runs` runs of random changes over it; *model: the rows they make.
std::unique_ptr<LayeredTable> Random(nutchfs::Env& env, const testutil::TempDir& dir,
                                     std::mt19937& rng, int runs, Rows* model) {
  Rows base;
  for (int i = 0; i < 300; ++i) base[Key(rng)] = "base" + std::to_string(rng() % 100);
  *model = base;
  auto base_table = WriteSmallTable(env, dir.File("base.tbl"), base);
  std::vector<std::unique_ptr<Table>> run_tables;
  uint64_t records = base.size();
  for (int r = 0; r < runs; ++r) {
    Rows run;
    const int changes = 1 + static_cast<int>(rng() % (r == 0 ? 200 : 30));
    for (int i = 0; i < changes; ++i) {
      const std::string key = Key(rng);
      if (run.count(key)) continue;
      const bool held = model->count(key) > 0;
      const bool remove = held && rng() % 3 == 0;
      std::string stored;
      const RunTag tag = remove ? RunTag::kRemove : held ? RunTag::kReplace : RunTag::kInsert;
      const std::string value = "run" + std::to_string(r) + "." + std::to_string(rng() % 100);
      EncodeRunValue(tag, value, &stored);
      run[key] = stored;
    }
    for (const auto& [k, v] : run) {
      const RunRow row = *DecodeRunValue(v);
      if (row.tag == RunTag::kRemove) {
        model->erase(k);
        --records;
      } else {
        if (row.tag == RunTag::kInsert) ++records;
        (*model)[k] = std::string(row.value);
      }
    }
    run_tables.push_back(WriteSmallTable(env, dir.File("run" + std::to_string(r) + ".tbl"), run));
  }
  REQUIRE(records == model->size());
  return std::make_unique<LayeredTable>(std::move(base_table), std::move(run_tables), records);
}

Rows Scan(Iterator& it) {
  Rows out;
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    REQUIRE(out.count(std::string(it.key())) == 0);
    out[std::string(it.key())] = std::string(it.value());
  }
  REQUIRE(it.status().ok());
  return out;
}

// Collects what a merge hands the new table.
class CollectingSink final : public RowSink {
 public:
  Status Add(std::string_view key, std::string_view value) override {
    rows[std::string(key)] = std::string(value);
    return Status::OK();
  }
  Rows rows;
};

TEST_CASE("a layered table reads as the rows its layers make", "[layered]") {
  auto env = nutchfs::NewLocalEnv();
  testutil::TempDir dir;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    Rows model;
    auto table = Random(*env, dir, rng, static_cast<int>(seed % 7), &model);
    CHECK(table->num_records() == model.size());
    auto it = table->NewIterator();
    CHECK(Scan(*it) == model);

    // Seeks, in increasing order (as a stage makes them) and at random.
    std::vector<std::string> targets;
    for (int i = 0; i < 200; ++i) targets.push_back(Key(rng) + (rng() % 2 ? "" : "x"));
    std::sort(targets.begin(), targets.end());
    for (int pass = 0; pass < 2; ++pass) {
      for (const std::string& t : targets) {
        it->Seek(t);
        auto want = model.lower_bound(t);
        REQUIRE(it->status().ok());
        REQUIRE(it->Valid() == (want != model.end()));
        if (want == model.end()) continue;
        REQUIRE(it->key() == want->first);
        REQUIRE(it->value() == want->second);
        if (rng() % 2) {  // a step forward, then seek on
          it->Next();
          auto next = std::next(want);
          REQUIRE(it->Valid() == (next != model.end()));
          if (next != model.end()) REQUIRE(it->key() == next->first);
        }
      }
      std::shuffle(targets.begin(), targets.end(), rng);
    }

    // A key range.
    const KeyRange range{"k2", std::string("k5")};
    Rows in_range;
    for (const auto& [k, v] : model) {
      if (range.Contains(k)) in_range[k] = v;
    }
    auto ranged = table->NewIterator(range);
    CHECK(Scan(*ranged) == in_range);
  }
}

TEST_CASE("a merge over a layered table copies what no run touches, and only that",
          "[layered]") {
  auto env = nutchfs::NewLocalEnv();
  testutil::TempDir dir;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    Rows model;
    auto table = Random(*env, dir, rng, static_cast<int>(seed % 4), &model);
    auto it = table->NewIterator();
    CollectingSink sink;
    uint64_t blocks = 0;
    it->SeekToFirst();
    while (it->Valid()) {
      if (it->MaybeAtBlockStart() && rng() % 2 == 0) {
        if (std::optional<RawBlock> block = it->CurrentBlock()) {
          REQUIRE(sink.AddBlock(*block).ok());
          it->SkipBlock();
          ++blocks;
          continue;
        }
      }
      sink.rows[std::string(it->key())] = std::string(it->value());
      switch (rng() % 4) {
        case 0: {
          uint64_t moved = 0;
          const std::string limit = Key(rng);
          REQUIRE(it->MoveRowsInBlock(limit < it->key() ? std::optional<std::string_view>()
                                                        : std::optional<std::string_view>(limit),
                                      &sink, &moved)
                      .ok());
          break;
        }
        case 1: {
          // What SkipRowsSharing passes must be rows the merge leaves out as they are.
          const std::string prefix(it->key().substr(0, 2));
          auto from = model.find(std::string(it->key()));
          const uint64_t moved = it->SkipRowsSharing(2);
          for (uint64_t i = 1; i < moved; ++i) {
            ++from;
            REQUIRE(from->first.starts_with(prefix));
            sink.rows[from->first] = from->second;
          }
          break;
        }
        default:
          it->Next();
      }
    }
    REQUIRE(it->status().ok());
    CHECK(sink.rows == model);
    if (table->num_runs() == 0) CHECK(blocks > 0);
  }
}

TEST_CASE("a malformed run row is Corruption naming the run file", "[layered]") {
  auto env = nutchfs::NewLocalEnv();
  testutil::TempDir dir;
  Rows base{{"a", "1"}, {"b", "2"}};
  Rows run{{"b", std::string("\x07", 1) + "x"}};
  std::vector<std::unique_ptr<Table>> runs;
  runs.push_back(WriteSmallTable(*env, dir.File("run.tbl"), run));
  LayeredTable table(WriteSmallTable(*env, dir.File("base.tbl"), base), std::move(runs), 2);
  auto it = table.NewIterator();
  it->SeekToFirst();
  REQUIRE(it->Valid());
  CHECK(it->key() == "a");
  it->Next();
  CHECK_FALSE(it->Valid());
  CHECK(it->status().IsCorruption());
  CHECK(it->status().message().find(dir.File("run.tbl")) != std::string::npos);
  CHECK(it->status().message().find("key b") != std::string::npos);
}

TEST_CASE("run tags: what a merged row says of the layers below and above", "[layered]") {
  CHECK(TagOf(false, true) == RunTag::kInsert);
  CHECK(TagOf(true, true) == RunTag::kReplace);
  CHECK(TagOf(true, false) == RunTag::kRemove);
  CHECK_FALSE(TagOf(false, false).has_value());
  std::string stored;
  EncodeRunValue(RunTag::kRemove, "ignored", &stored);
  CHECK(stored == std::string(1, '\2'));
  CHECK_FALSE(DecodeRunValue("").has_value());
  CHECK_FALSE(DecodeRunValue(std::string("\2x", 2)).has_value());
  CHECK_FALSE(DecodeRunValue(std::string("\3", 1)).has_value());
  const std::string replaced("\1v", 2);  // the row views it
  const std::optional<RunRow> replace = DecodeRunValue(replaced);
  REQUIRE(replace.has_value());
  CHECK(replace->tag == RunTag::kReplace);
  CHECK(replace->value == "v");
}

}  // namespace
}  // namespace webdb
