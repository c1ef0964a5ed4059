#include "webdb/stages/key_merger.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <map>
#include <set>
#include <random>

#include "nutchfs/mem_env.h"
#include "test/util/corrupt.h"
#include "test/util/edit_util.h"
#include "test/util/row_util.h"
#include "test/util/temp_dir.h"
#include "webdb/sort/sorter.h"
#include "webdb/table/table.h"
#include "webdb/table/table_builder.h"

namespace webdb {
namespace {

using testutil::OwnedEdit;
using testutil::Rows;

// One step of a KeyMerger, copied out.
struct Step {
  std::string key;
  bool has_row = false;
  std::string row_value;
  std::vector<OwnedEdit> edits;
  bool operator==(const Step&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Step& s) {
  os << "{" << s.key << (s.has_row ? " row " + s.row_value : " no row") << ",";
  for (const OwnedEdit& e : s.edits) os << " " << e;
  return os << "}";
}

// The merger's current step (one key), copied out.
Step StepOf(const KeyMerger& m) {
  Step s{std::string(m.key()), m.has_row(), m.has_row() ? std::string(m.row_value()) : "", {}};
  for (size_t i = 0; i < m.num_edits(); ++i) {
    s.edits.push_back({s.key, m.edit(i).order, m.edit(i).kind, std::string(m.edit(i).value)});
  }
  return s;
}

struct Merged {
  std::vector<Step> steps;
  uint64_t total_edits = 0;
  Status status;
};

Merged MergeAll(Iterator& rows, EditIterator& edits) {
  KeyMerger m(rows, edits);
  Merged out;
  while (m.Next()) {
    REQUIRE(m.block() == nullptr);
    out.steps.push_back(StepOf(m));
  }
  out.total_edits = m.total_edits();
  out.status = m.status();
  return out;
}

// What a merge must offer: every key of either input once, in order, with its row and
// its edits in stream order.
std::vector<Step> Expected(const Rows& rows, const std::vector<OwnedEdit>& sorted_edits) {
  std::map<std::string, Step> by_key;
  for (const auto& [key, value] : rows) by_key[key] = Step{key, true, value, {}};
  for (const OwnedEdit& e : sorted_edits) {
    Step& s = by_key[e.key];
    s.key = e.key;
    s.edits.push_back(e);
  }
  std::vector<Step> steps;
  for (auto& [key, s] : by_key) steps.push_back(std::move(s));
  return steps;
}

// 0..7 bytes of four values, '\0' and '\xff' among them: keys that share prefixes at every
// offset, and equal and prefix keys.
std::string ShortKey(std::mt19937_64& rng) {
  std::string key;
  for (size_t n = rng() % 8; n > 0; --n) key.push_back("ab\0\xff"[rng() % 4]);
  return key;
}

Rows RandomRows(std::mt19937_64& rng, size_t count) {
  std::map<std::string, std::string> rows;
  for (size_t i = 0; i < count; ++i) rows[ShortKey(rng)] = "row" + std::to_string(i);
  return Rows(rows.begin(), rows.end());
}

// count edits with orders 0 to 3, each at a row key or at a short key, half and half.
std::vector<OwnedEdit> EditsAtAndBetween(std::mt19937_64& rng, const Rows& rows, size_t count) {
  std::vector<OwnedEdit> edits;
  for (size_t i = count; i > 0; --i) {
    std::string key = rows.empty() || rng() % 2 ? ShortKey(rng) : rows[rng() % rows.size()].first;
    edits.push_back({key, rng() % 4, 0, "edit" + std::to_string(i)});
  }
  return edits;
}

// rows in a table file of 64-byte blocks: a few rows a block.
std::unique_ptr<Table> SmallBlockTable(nutchfs::Env& env, const Rows& rows) {
  auto builder = TableBuilder::Create(env, "/t.tbl", 64);
  REQUIRE(builder);
  for (const auto& [key, value] : rows) REQUIRE((*builder)->Add(key, value).ok());
  REQUIRE((*builder)->Finish().ok());
  auto table = Table::Open(env, "/t.tbl");
  REQUIRE(table);
  return std::move(*table);
}

TEST_CASE("key merger offers each key once with its row and its edits in order",
          "[key_merger][random]") {
  const uint64_t seed = GENERATE(1, 2, 3, 4, 5, 6);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const Rows rows = RandomRows(rng, rng() % 200);
  std::vector<OwnedEdit> edits = testutil::RandomEdits(rng, rng() % 500, {300, 5, 6});
  const std::vector<OwnedEdit> sorted = testutil::StableSorted(edits);
  const std::vector<Step> expected = Expected(rows, sorted);

  SECTION("edits whose views move: keys and values copied") {
    auto row_it = testutil::NewVectorIterator(rows);
    auto edit_it = testutil::NewVectorEditIterator(sorted);
    REQUIRE_FALSE(edit_it->views_stable());
    Merged got = MergeAll(*row_it, *edit_it);
    CHECK(got.status.ok());
    CHECK(got.steps == expected);
    CHECK(got.total_edits == edits.size());
  }
  SECTION("edits whose views stay: keys and values viewed where they are") {
    auto env = nutchfs::NewMemEnv();
    auto sorter = Sorter::Create(*env, "/tmp", size_t{8} << 20, "edits");
    for (const OwnedEdit& e : edits) REQUIRE(sorter->Add(e.view()).ok());
    auto edit_it = sorter->Finish();
    REQUIRE(edit_it);
    REQUIRE((*edit_it)->views_stable());
    auto row_it = testutil::NewVectorIterator(rows);
    Merged got = MergeAll(*row_it, **edit_it);
    CHECK(got.status.ok());
    CHECK(got.steps == expected);
    CHECK(got.total_edits == edits.size());
  }
}

TEST_CASE("key merger over a table file offers each key once with its row and its edits",
          "[key_merger][random]") {
  // Short keys in blocks of a few rows; half the edit keys are row keys.
  const uint64_t seed = GENERATE(1, 2, 3, 4, 5, 6, 7, 8);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const Rows rows = RandomRows(rng, rng() % 300);
  const std::vector<OwnedEdit> edits = EditsAtAndBetween(rng, rows, rng() % 300);
  const std::vector<OwnedEdit> sorted = testutil::StableSorted(edits);

  auto env = nutchfs::NewMemEnv();
  auto table = SmallBlockTable(*env, rows);
  auto row_it = table->NewIterator();
  auto edit_it = testutil::NewVectorEditIterator(sorted);
  Merged got = MergeAll(*row_it, *edit_it);
  CHECK(got.status.ok());
  CHECK(got.steps == Expected(rows, sorted));
}

TEST_CASE("key merger skips or copies the rows that share a key prefix up to the next edit",
          "[key_merger][random]") {
  const uint64_t seed = GENERATE(1, 2, 3, 4, 5, 6, 7, 8);
  const bool table_file = GENERATE(false, true);
  INFO("seed " << seed << (table_file ? ", table file" : ", vector"));
  std::mt19937_64 rng(seed);
  const Rows rows = RandomRows(rng, rng() % 300);
  const std::vector<OwnedEdit> edits = EditsAtAndBetween(rng, rows, rng() % 100);
  const std::vector<OwnedEdit> sorted = testutil::StableSorted(edits);
  const std::vector<Step> expected = Expected(rows, sorted);

  auto env = nutchfs::NewMemEnv();
  auto table = SmallBlockTable(*env, rows);
  auto row_it = table_file ? table->NewIterator() : testutil::NewVectorIterator(rows);
  auto edit_it = testutil::NewVectorEditIterator(sorted);
  KeyMerger m(*row_it, *edit_it);
  size_t at = 0, skips = 0;  // the step of expected that m is on
  while (m.Next()) {
    REQUIRE(at < expected.size());
    const Step& want = expected[at];
    REQUIRE(std::string(m.key()) == want.key);
    REQUIRE(m.num_edits() == want.edits.size());
    ++at;
    const size_t n = 1 + rng() % 3;
    if (!m.has_row() || m.num_edits() > 0 || m.key().size() < n || rng() % 2 == 0) continue;
    // The steps that follow with the same first n bytes, unless an edit falls among them.
    const std::string prefix = want.key.substr(0, n);
    size_t end = at;
    while (end < expected.size() && expected[end].key.starts_with(prefix) &&
           expected[end].edits.empty()) {
      ++end;
    }
    if (end < expected.size() && expected[end].key.starts_with(prefix)) end = at;
    INFO("skip at " << want.key << " by " << n << " bytes");
    CHECK(m.SkipRowsSharing(n) == end - at);
    skips += end > at;
    at = end;
  }
  CHECK(m.status().ok());
  CHECK(at == expected.size());
  CHECK(m.total_edits() == edits.size());
  if (rows.size() > 100) CHECK(skips > 0);
}

TEST_CASE("key merger reports an edit stream out of order", "[key_merger]") {
  // After the edits of "b" (the second one compared against the first), an edit for "a".
  auto rows = testutil::NewVectorIterator({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  auto edits =
      testutil::NewVectorEditIterator({{"b", 1, 0, "x"}, {"b", 2, 0, "y"}, {"a", 3, 0, "z"}});
  KeyMerger m(*rows, *edits);
  REQUIRE(m.Next());
  CHECK(m.key() == "a");
  CHECK(m.num_edits() == 0);
  CHECK_FALSE(m.Next());
  CHECK(m.status().IsCorruption());
  CHECK_THAT(m.status().ToString(), Catch::Contains("edit stream out of order"));
}

TEST_CASE("key merger stops at a failing edit stream with its status", "[key_merger]") {
  auto rows = testutil::NewVectorIterator({{"a", "1"}, {"c", "3"}});
  auto edits = testutil::NewVectorEditIterator({{"a", 1, 0, "x"}},
                                               Status::IOError("edits.run: read failed"));
  KeyMerger m(*rows, *edits);
  REQUIRE(m.Next());
  CHECK(m.key() == "a");
  CHECK(m.num_edits() == 1);
  CHECK_FALSE(m.Next());
  CHECK_THAT(m.status().ToString(), Catch::Contains("edits.run: read failed"));
}

// A join key for JoinChanges: the first byte (a prefix, nondecreasing in key order).
std::string_view FirstByte(std::string_view key) { return key.substr(0, 1); }

// Records what a sparse merge keeps unread, row by row, from the rows of the table.
class KeptRows : public RowSink {
 public:
  explicit KeptRows(const Rows& rows) : rows_(rows) {}
  Status Add(std::string_view key, std::string_view) override {
    return Status::InvalidArgument("a sparse merge hands no row: " + std::string(key));
  }
  Status KeepRows(std::string_view from, std::optional<std::string_view> limit) override {
    ++calls;
    for (const auto& [key, value] : rows_) {
      if (key >= from && (!limit || key < *limit)) kept.push_back(key);
    }
    return Status::OK();
  }
  std::vector<std::string> kept;
  int calls = 0;

 private:
  const Rows& rows_;
};

TEST_CASE("a sparse key merger offers the edited and noticed keys and keeps the rest unread",
          "[key_merger][seeks]") {
  const uint64_t seed = GENERATE(range(1, 13));
  const size_t group = seed % 2;  // by whole keys, or by groups of a first byte
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const Rows rows = RandomRows(rng, 100 + rng() % 300);
  const std::vector<OwnedEdit> sorted =
      testutil::StableSorted(EditsAtAndBetween(rng, rows, rng() % 12));
  std::set<std::string> noticed;
  for (int i = static_cast<int>(rng() % 3); i > 0; --i) {
    noticed.insert(std::string(FirstByte(rows[rng() % rows.size()].first)));
  }
  std::vector<OwnedEdit> notices;
  for (const std::string& n : noticed) notices.push_back({n, 0, 0, ""});
  JoinChanges changes(FirstByte, testutil::NewVectorEditIterator(notices));

  auto env = nutchfs::NewMemEnv();
  auto table = SmallBlockTable(*env, rows);
  auto row_it = table->NewIterator();
  auto edit_it = testutil::NewVectorEditIterator(sorted);
  KeyMerger m(*row_it, *edit_it, /*copy_blocks=*/true, &changes);
  KeptRows kept(rows);
  m.SeekPastUnchanged(&kept, group);
  std::vector<Step> got;
  while (m.Next()) {
    if (const RawBlock* b = m.block()) {  // by groups, a block of an offered group
      testutil::RowCollector block_rows;
      REQUIRE(block_rows.AddBlock(*b).ok());
      for (const auto& [k, v] : block_rows.rows) got.push_back(Step{k, true, v, {}});
      continue;
    }
    got.push_back(StepOf(m));
  }
  INFO(m.status().ToString());
  REQUIRE(m.status().ok());
  CHECK(m.total_edits() == sorted.size());
  CHECK(m.seeks() == static_cast<uint64_t>(kept.calls));
  // Each key is offered as a full merge offers it, or kept unread, never both; the
  // edited ones, the noticed ones and, by groups, those of a group an edit or an offered
  // key is in are offered.
  std::set<std::string> edit_groups;
  for (const OwnedEdit& e : sorted) edit_groups.insert(e.key.substr(0, group));
  std::set<std::string> offered_groups;
  std::map<std::string, Step> offered;
  for (const Step& s : got) {
    offered.emplace(s.key, s);
    offered_groups.insert(s.key.substr(0, group));
  }
  std::set<std::string> kept_keys(kept.kept.begin(), kept.kept.end());
  CHECK(kept_keys.size() == kept.kept.size());
  size_t keys = 0;
  for (const Step& want : Expected(rows, sorted)) {
    INFO("key " << want.key);
    ++keys;
    auto o = offered.find(want.key);
    const bool must_offer = !want.edits.empty() ||
                            noticed.count(std::string(FirstByte(want.key))) ||
                            (group > 0 && !want.key.empty() &&
                             (edit_groups.count(want.key.substr(0, group)) > 0 ||
                              offered_groups.count(want.key.substr(0, group)) > 0));
    if (o != offered.end()) {
      CHECK(o->second == want);
      CHECK(kept_keys.count(want.key) == 0);
    } else {
      CHECK_FALSE(must_offer);
      CHECK(kept_keys.count(want.key) == 1);
    }
  }
  CHECK(offered.size() + kept_keys.size() == keys);
  // The keys come in order.
  CHECK(std::is_sorted(got.begin(), got.end(),
                       [](const Step& a, const Step& b) { return a.key < b.key; }));
  if (sorted.size() < 4 && noticed.empty()) CHECK(kept.kept.size() > rows.size() / 2);
}

TEST_CASE("key merger moves past a block's rows up to the next edit or notice",
          "[key_merger][random]") {
  const uint64_t seed = GENERATE(1, 2, 3, 4, 5, 6, 7, 8);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const Rows rows = RandomRows(rng, 100 + rng() % 300);
  const std::vector<OwnedEdit> sorted =
      testutil::StableSorted(EditsAtAndBetween(rng, rows, rng() % 60));
  const std::vector<Step> expected = Expected(rows, sorted);

  auto env = nutchfs::NewMemEnv();
  auto table = SmallBlockTable(*env, rows);
  std::map<std::string, uint64_t> block_of;  // each row key's block
  auto walk = table->NewIterator();
  for (walk->SeekToFirst(); walk->Valid(); walk->Next())
    block_of[std::string(walk->key())] = *walk->BlockIndex();
  REQUIRE(walk->status().ok());
  // Notices: the join keys of two rows, and one that no row has.
  std::set<std::string> noticed = {"\x7f"};
  for (int i = 0; i < 2; ++i)
    noticed.insert(std::string(FirstByte(rows[rng() % rows.size()].first)));
  std::vector<OwnedEdit> notices;
  for (const std::string& n : noticed) notices.push_back({n, 0, 0, ""});
  JoinChanges changes(FirstByte, testutil::NewVectorEditIterator(notices));

  auto row_it = table->NewIterator();
  auto edit_it = testutil::NewVectorEditIterator(sorted);
  KeyMerger m(*row_it, *edit_it, /*copy_blocks=*/true, &changes);
  std::vector<Step> got;  // every key offered, in a block, a step or a move
  size_t moves = 0;
  auto is_noticed = [&](std::string_view key) {
    return noticed.count(std::string(FirstByte(key))) > 0;
  };
  while (m.Next()) {
    if (const RawBlock* b = m.block()) {
      testutil::RowCollector block_rows;
      REQUIRE(block_rows.AddBlock(*b).ok());
      for (const auto& [k, v] : block_rows.rows) {
        CHECK_FALSE(is_noticed(k));  // a block with a noticed row is merged row by row
        got.push_back(Step{k, true, v, {}});
      }
      continue;
    }
    const Step s = StepOf(m);
    got.push_back(s);
    REQUIRE(m.InStoredBlock() == m.has_row());
    if (!m.has_row() || rng() % 3 == 0) continue;
    // The rows it must move: those after this one in its block, below the next edit's key
    // and below the first notice at or above this row's join key.
    auto row =
        std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.first == s.key; });
    REQUIRE(row != rows.end());
    auto next_edit =
        std::upper_bound(sorted.begin(), sorted.end(), s.key,
                         [](const std::string& k, const OwnedEdit& e) { return k < e.key; });
    auto notice = noticed.lower_bound(std::string(FirstByte(s.key)));
    size_t want = 0;
    for (auto r = row + 1; r != rows.end() && block_of.at(r->first) == block_of.at(s.key) &&
                           (next_edit == sorted.end() || r->first < next_edit->key) &&
                           (notice == noticed.end() || r->first < *notice);
         ++r) {
      ++want;
    }
    testutil::RowCollector moved;
    Result<uint64_t> n = m.MoveUnchangedRows(&moved);
    REQUIRE(n.has_value());
    REQUIRE(*n == moved.rows.size());
    CHECK(*n == want);
    for (const auto& [k, v] : moved.rows) {
      INFO("moved " << k << " after " << s.key);
      CHECK(block_of.at(k) == block_of.at(s.key));  // within the step's block
      CHECK_FALSE(is_noticed(k));
      got.push_back(Step{k, true, v, {}});
    }
    moves += *n > 0;
  }
  REQUIRE(m.status().ok());
  CHECK(got == expected);  // and so no row with an edit was moved past
  CHECK(m.total_edits() == sorted.size());
  CHECK(moves > 0);
}

TEST_CASE("key merger checks every row when the notices cannot be read", "[key_merger]") {
  auto env = nutchfs::NewMemEnv();
  Rows rows;
  for (int i = 0; i < 40; ++i) rows.emplace_back("k" + std::to_string(100 + i), "v");
  auto table = SmallBlockTable(*env, rows);
  JoinChanges changes(FirstByte, testutil::NewVectorEditIterator(
                                     {}, Status::Corruption("notices: bad frame at offset 9")));
  auto row_it = table->NewIterator();
  auto edit_it = testutil::NewVectorEditIterator({});
  KeyMerger m(*row_it, *edit_it, /*copy_blocks=*/true, &changes);
  size_t steps = 0;
  while (m.Next()) {
    CHECK(m.block() == nullptr);  // no block copied whole
    ++steps;
    testutil::RowCollector moved;
    Result<uint64_t> n = m.MoveUnchangedRows(&moved);
    REQUIRE(n.has_value());
    CHECK(*n == 0);  // and no row moved past
  }
  CHECK(steps == rows.size());
  CHECK_THAT(m.status().ToString(), Catch::Contains("notices: bad frame at offset 9"));
}

TEST_CASE("key merger with skip_blocks moves past unchanged blocks without reading them",
          "[key_merger][random]") {
  const uint64_t seed = GENERATE(1, 2, 3, 4, 5, 6);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const Rows rows = RandomRows(rng, 300);
  const std::vector<OwnedEdit> sorted = testutil::StableSorted(EditsAtAndBetween(rng, rows, 4));
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string path = dir.File("t.tbl");
  {
    auto builder = TableBuilder::Create(*env, path, 64);
    REQUIRE(builder);
    for (const auto& [key, value] : rows) REQUIRE((*builder)->Add(key, value).ok());
    REQUIRE((*builder)->Finish().ok());
  }
  auto table = Table::Open(*env, path);
  REQUIRE(table);
  const Table& t = **table;
  // A block is unchanged when no edit key falls within its key range (those before its
  // first key are offered before it is reached): its rows are never offered.
  std::vector<std::string> first_key(t.num_blocks());
  auto walk = t.NewIterator();
  for (walk->SeekToFirst(); walk->Valid(); walk->Next()) {
    if (walk->AtBlockStart()) first_key[*walk->BlockIndex()] = walk->key();
  }
  REQUIRE(walk->status().ok());
  auto unchanged = [&](uint64_t b) {
    for (const OwnedEdit& e : sorted) {
      if (e.key >= first_key[b] && e.key <= *t.BlockLastKey(b)) return false;
    }
    return true;
  };
  std::vector<Step> expected;
  for (const Step& s : Expected(rows, sorted)) {
    uint64_t b = 0;
    while (b < t.num_blocks() && *t.BlockLastKey(b) < s.key) ++b;
    if (!s.has_row || !s.edits.empty() || !unchanged(b)) expected.push_back(s);
  }
  // A block skipped after another, never entered, is damaged: the merge does not see it.
  // It is one no edit key reaches from the block before it on.
  auto skipped_after = [&](uint64_t b) {
    for (const OwnedEdit& e : sorted) {
      if (e.key > *t.BlockLastKey(b - 1) && e.key <= *t.BlockLastKey(b)) return false;
    }
    return unchanged(b - 1);
  };
  uint64_t damaged = 0;
  for (uint64_t b = 1; b < t.num_blocks() && damaged == 0; ++b) {
    if (skipped_after(b)) damaged = b;
  }
  REQUIRE(damaged > 0);
  testutil::FlipByte(path, t.BlockHandleOf(damaged)->offset);

  auto row_it = t.NewIterator();
  auto edit_it = testutil::NewVectorEditIterator(sorted);
  KeyMerger m(*row_it, *edit_it, /*copy_blocks=*/true, nullptr, /*skip_blocks=*/true);
  std::vector<Step> got;
  while (m.Next()) {
    REQUIRE(m.block() == nullptr);
    got.push_back(StepOf(m));
  }
  INFO(m.status().ToString());
  REQUIRE(m.status().ok());
  CHECK(got == expected);
  CHECK(m.total_edits() == sorted.size());
  // Offered whole instead, the same blocks are read: the damaged one is found.
  auto again = t.NewIterator();
  auto edits_again = testutil::NewVectorEditIterator(sorted);
  KeyMerger copying(*again, *edits_again, /*copy_blocks=*/true);
  while (copying.Next()) {
  }
  CHECK(copying.status().IsCorruption());
}

}  // namespace
}  // namespace webdb
