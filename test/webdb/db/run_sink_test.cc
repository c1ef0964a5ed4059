// webdb::RunSink (docs/DESIGN.md, "Writing a round"): the rows of a new table handed to it
// over a layered table become a run of their differences from the layers below, which,
// over those layers, makes exactly the new rows; its tags are right for the layers below
// whatever runs it absorbs (inserts put back, tombstones over rows put again); blocks the
// stage copies whole cost no row; a sparse stage's rows kept unread (RunSink::KeepRows)
// make the same run as the same rows handed one by one, absorbed runs included.
#include "webdb/db/run_sink.h"

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>

#include "test/util/row_util.h"
#include "test/util/temp_dir.h"
#include "webdb/util/deferred_syncs.h"

namespace webdb {
namespace {

using Rows = std::map<std::string, std::string>;
using testutil::WriteSmallTable;

std::unique_ptr<Table> Open(nutchfs::Env& env, const std::string& path) {
  auto table = Table::Open(env, path);
  REQUIRE(table.has_value());
  return std::move(*table);
}

std::string Key(std::mt19937& rng) { return "k" + std::to_string(rng() % 200); }

// Random changes to rows: values changed, rows removed, rows added.
Rows Changed(const Rows& rows, std::mt19937& rng, int changes, const std::string& label) {
  Rows out = rows;
  for (int i = 0; i < changes; ++i) {
    const std::string key = Key(rng);
    if (out.count(key) && rng() % 2) {
      out.erase(key);
    } else {
      out[key] = label + std::to_string(rng() % 10);
    }
  }
  return out;
}

// The layers a chain of runs makes: each run written by a RunSink over the ones below
// it (absorbing some at random), every table compared with the rows it should hold.
class Chain {
 public:
  Chain(nutchfs::Env& env, const testutil::TempDir& dir, Rows base)
      : env_(env), dir_(dir), rows_(std::move(base)) {
    WriteSmallTable(env, dir.File("base.tbl"), rows_);
  }

  // The table that rows_ becomes `next`, written as a run absorbing the newest `absorb`
  // runs; feeds the sink as a stage does, blocks of the old table with no change whole,
  // or with sparse as a stage that seeks does, the rows between changes kept unread.
  // Returns the run's rows as stored.
  Rows Round(const Rows& next, size_t absorb, bool sparse = false) {
    auto old_table = Layered(runs_.size());
    const size_t below = runs_.size() - absorb;
    const Rows below_rows = Scan(*Layered(below)->NewIterator());
    const std::string name = "run" + std::to_string(++made_) + ".tbl";
    auto out = TableWriter::Create(env_, dir_.path(), name, 64, "test", 0, no_progress_, syncs_);
    REQUIRE(out.has_value());
    std::vector<std::unique_ptr<Iterator>> absorbed;
    std::vector<std::string> names;
    for (size_t i = below; i < runs_.size(); ++i) {
      absorbed.push_back(old_table->run(i).NewIterator());
      names.push_back(runs_[i].name);
    }
    RunSink sink(old_table->NewIteratorBelow(below), std::move(absorbed), std::move(names),
                 std::move(*out));
    auto it = old_table->NewIterator();
    it->SeekToFirst();
    if (sparse) FeedSparse(*it, next, sink);
    auto add = next.begin();
    while (!sparse && (it->Valid() || add != next.end())) {
      if (it->Valid() && it->AtBlockStart()) {
        std::optional<RawBlock> block = it->CurrentBlock();
        // As a stage: the new rows before the block are handed on first.
        const bool behind = add != next.end() && add->first < it->key();
        if (block && !behind && Untouched(*block, next)) {
          while (add != next.end() && add->first <= block->last_key) ++add;
          REQUIRE(sink.AddBlock(*block).ok());
          ++blocks_copied_;
          it->SkipBlock();
          continue;
        }
      }
      const bool from_new = add != next.end() && (!it->Valid() || add->first <= it->key());
      if (it->Valid() && (!from_new || add->first == it->key())) it->Next();
      if (from_new) {
        REQUIRE(sink.Add(add->first, add->second).ok());
        ++add;
      }
    }
    REQUIRE(it->status().ok());
    auto run = sink.Finish();
    REQUIRE(run.has_value());
    REQUIRE(syncs_.Wait().ok());
    // Every tag says rightly whether the layers below hold the key.
    auto run_table = Open(env_, dir_.File(name));
    auto stored = run_table->NewIterator();
    uint64_t inserts = 0, removes = 0;
    for (stored->SeekToFirst(); stored->Valid(); stored->Next()) {
      const std::optional<RunRow> row = DecodeRunValue(stored->value());
      REQUIRE(row.has_value());
      REQUIRE(HeldBelow(row->tag) == (below_rows.count(std::string(stored->key())) > 0));
      inserts += row->tag == RunTag::kInsert;
      removes += row->tag == RunTag::kRemove;
    }
    CHECK(run->inserts == inserts);
    CHECK(run->removes == removes);
    runs_.resize(below);
    runs_.push_back({name, run->file.records, run->inserts, run->removes});
    rows_ = next;
    auto table = Layered(runs_.size());
    CHECK(table->num_records() == rows_.size());
    CHECK(Scan(*table->NewIterator()) == rows_);
    return Scan(*run_table->NewIterator());
  }

  const Rows& rows() const { return rows_; }
  size_t runs() const { return runs_.size(); }
  int blocks_copied() const { return blocks_copied_; }

 private:
  struct Run {
    std::string name;
    uint64_t records, inserts, removes;
  };

  static Rows Scan(Iterator&& it) { return Scan(it); }
  static Rows Scan(Iterator& it) {
    Rows out;
    for (it.SeekToFirst(); it.Valid(); it.Next()) out[std::string(it.key())] = it.value();
    REQUIRE(it.status().ok());
    return out;
  }

  // As a stage that seeks: at each key where next differs from rows_, the old rows before
  // it kept unread, the new row (if any) handed.
  void FeedSparse(Iterator& it, const Rows& next, RunSink& sink) {
    std::set<std::string> changed;
    for (const auto& [key, value] : rows_) {
      auto n = next.find(key);
      if (n == next.end() || n->second != value) changed.insert(key);
    }
    for (const auto& [key, value] : next) {
      if (!rows_.count(key)) changed.insert(key);
    }
    for (const std::string& key : changed) {
      if (it.Valid() && it.key() < key) {
        REQUIRE(sink.KeepRows(it.key(), key).ok());
        it.Seek(key);
      }
      if (auto n = next.find(key); n != next.end()) REQUIRE(sink.Add(key, n->second).ok());
      if (it.Valid() && it.key() == key) it.Next();
    }
    if (it.Valid()) REQUIRE(sink.KeepRows(it.key(), std::nullopt).ok());
    REQUIRE(it.status().ok());
  }

  // Whether next holds exactly the block's rows over its key range.
  bool Untouched(const RawBlock& block, const Rows& next) const {
    Rows in_block;
    for (auto it = rows_.lower_bound(std::string(block.first_key));
         it != rows_.end() && it->first <= block.last_key; ++it) {
      in_block.insert(*it);
    }
    Rows in_next;
    for (auto it = next.lower_bound(std::string(block.first_key));
         it != next.end() && it->first <= block.last_key; ++it) {
      in_next.insert(*it);
    }
    return in_block == in_next;
  }

  // The base and the oldest n runs.
  std::unique_ptr<LayeredTable> Layered(size_t n) {
    auto base = Open(env_, dir_.File("base.tbl"));
    uint64_t records = base->num_records();
    std::vector<std::unique_ptr<Table>> runs;
    for (size_t i = 0; i < n; ++i) {
      runs.push_back(Open(env_, dir_.File(runs_[i].name)));
      records += runs_[i].inserts - runs_[i].removes;
    }
    return std::make_unique<LayeredTable>(std::move(base), std::move(runs), records);
  }

  nutchfs::Env& env_;
  const testutil::TempDir& dir_;
  Rows rows_;
  std::vector<Run> runs_;
  const ProgressFn no_progress_;  // outlives the writers, which keep a reference
  DeferredSyncs syncs_;
  int made_ = 0;
  int blocks_copied_ = 0;
};

TEST_CASE("a run written by RunSink makes the new rows over the layers below", "[layered]") {
  auto env = nutchfs::NewLocalEnv();
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    testutil::TempDir dir;
    std::mt19937 rng(seed);
    Rows base;
    for (int i = 0; i < 150; ++i) base[Key(rng)] = "base" + std::to_string(rng() % 10);
    Chain chain(*env, dir, base);
    for (int round = 0; round < 8; ++round) {
      const Rows next = Changed(chain.rows(), rng, 1 + static_cast<int>(rng() % 20),
                                "r" + std::to_string(round) + ".");
      chain.Round(next, rng() % (chain.runs() + 1));
    }
  }
}

TEST_CASE("RunSink merges tags exactly when it absorbs runs", "[layered]") {
  auto env = nutchfs::NewLocalEnv();
  testutil::TempDir dir;
  Chain chain(*env, dir, {{"a", "1"}, {"b", "2"}, {"c", "3"}});
  chain.Round({{"a", "1"}, {"c", "3"}, {"d", "4"}}, 0);  // b removed, d inserted
  // Absorbing that run: b put again (over the base: a replace, not an insert), d removed
  // (an insert undone: nothing), a changed.
  chain.Round({{"a", "9"}, {"b", "2"}, {"c", "3"}}, 1);
  REQUIRE(chain.runs() == 1);
  auto run = Table::Open(*env, dir.File("run2.tbl"));
  REQUIRE(run.has_value());
  auto it = (*run)->NewIterator();
  Rows stored;
  for (it->SeekToFirst(); it->Valid(); it->Next()) stored[std::string(it->key())] = it->value();
  std::string replace_a;
  EncodeRunValue(RunTag::kReplace, "9", &replace_a);
  CHECK(stored == Rows{{"a", replace_a}});  // b is the base's again: no row at all
}

TEST_CASE("RunSink writes nothing for blocks copied whole", "[layered]") {
  auto env = nutchfs::NewLocalEnv();
  testutil::TempDir dir;
  Rows base;
  for (int i = 100; i < 400; ++i) base["k" + std::to_string(i)] = "v";
  Chain chain(*env, dir, base);
  Rows next = base;
  next["k250"] = "changed";
  next.erase("k399");
  chain.Round(next, 0);
  CHECK(chain.blocks_copied() > 10);
  auto run = Table::Open(*env, dir.File("run1.tbl"));
  REQUIRE(run.has_value());
  CHECK((*run)->num_records() == 2);
}

TEST_CASE("rows kept unread make the same run as rows handed, absorbed runs included",
          "[layered]") {
  auto env = nutchfs::NewLocalEnv();
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    testutil::TempDir walked_dir, sparse_dir;
    std::mt19937 rng(seed);
    Rows base;
    for (int i = 0; i < 150; ++i) base[Key(rng)] = "base" + std::to_string(rng() % 10);
    Chain walked(*env, walked_dir, base), sparse(*env, sparse_dir, base);
    for (int round = 0; round < 8; ++round) {
      INFO("round " << round);
      const Rows next = Changed(walked.rows(), rng, 1 + static_cast<int>(rng() % 20),
                                "r" + std::to_string(round) + ".");
      const size_t absorb = rng() % (walked.runs() + 1);
      CHECK(walked.Round(next, absorb) == sparse.Round(next, absorb, /*sparse=*/true));
    }
  }
}

TEST_CASE("a table writer refuses rows kept unread", "[layered]") {
  auto env = nutchfs::NewLocalEnv();
  testutil::TempDir dir;
  const ProgressFn no_progress;
  DeferredSyncs syncs;
  auto out = TableWriter::Create(*env, dir.path(), "t.tbl", 64, "test", 0, no_progress, syncs);
  REQUIRE(out.has_value());
  const Status s = (*out)->KeepRows("k1", std::nullopt);
  CHECK(s.IsInvalidArgument());
  CHECK(s.ToString().find("k1") != std::string::npos);
}

}  // namespace
}  // namespace webdb
