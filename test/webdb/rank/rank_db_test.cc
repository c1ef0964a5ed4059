// `webdb rank` on a single-machine db (webdb/rank/rank_db.h): graphs with known answers,
// random graphs against the spec's computation done densely (test/util/rank_graph.h), the
// same table bytes whatever the memory budget and block size, and a rank as a version
// (idempotent, kept and rolled back, refused while a writer holds the lock).
#include "webdb/rank/rank_db.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "test/util/crash_recovery.h"
#include "test/util/layer_tables.h"
#include "test/util/rank_graph.h"
#include "test/util/temp_dir.h"
#include "webdb/db/reader.h"
#include "webdb/db/versions.h"
#include "webdb/db/writer.h"

namespace webdb {
namespace {

using testutil::RankGraph;

class RankTestDb {
 public:
  explicit RankTestDb(const RankGraph& graph, const std::string& name = "db")
      : env_(nutchfs::NewLocalEnv()), dir_(tmp_.File(name)) {
    REQUIRE(Writer::Create(*env_, dir_).ok());
    Status s = testutil::RunSession(*env_, dir_, graph.ToSession());
    INFO(s.ToString());
    REQUIRE(s.ok());
  }

  nutchfs::Env& env() { return *env_; }
  const std::string& dir() const { return dir_; }

  Result<RankReport> Rank(RankOptions options = {}, size_t memory = size_t{64} << 20,
                          uint64_t block_ids = 0) {
    RankParams params;
    params.dir = dir_;
    params.options = options;
    params.memory_budget = memory;
    params.block_ids = block_ids;
    params.on_iteration = [this](const IterationReport& r) { iterations_.push_back(r); };
    params.before_step = before_step;
    return RankDb(*env_, params);
  }
  RankReport MustRank(RankOptions options = {}, size_t memory = size_t{64} << 20,
                      uint64_t block_ids = 0) {
    auto r = Rank(options, memory, block_ids);
    INFO((r ? "" : r.error().ToString()));
    REQUIRE(r.has_value());
    return *r;
  }

  testutil::DbDump Dump(std::optional<uint64_t> version = std::nullopt) {
    auto reader = Reader::Open(*env_, dir_, version);
    REQUIRE(reader.has_value());
    auto dump = testutil::DumpDb(**reader);
    REQUIRE(dump.has_value());
    return *dump;
  }
  float ScoreOf(const std::string& url) {
    for (const Page& p : Dump().pages_by_url) {
      if (p.url == url) return p.score;
    }
    FAIL("no page " << url);
    return 0;
  }
  Manifest Current() {
    auto m = ReadCurrentManifest(*env_, dir_);
    REQUIRE(m.has_value());
    return *m;
  }
  // The bytes of the current version's page tables.
  std::string PageTableBytes() {
    const Manifest m = Current();
    std::string bytes;
    for (TableId t : {TableId::kPagesByUrl, TableId::kPagesByMd5}) {
      for (const TableFile& f : m.table(t)) {
        auto text = nutchfs::ReadFileToString(*env_, dir_ + "/" + f.name);
        REQUIRE(text.has_value());
        bytes += *text;
      }
    }
    return bytes;
  }
  const std::vector<IterationReport>& iterations() const { return iterations_; }
  // The names of the files in the work area now.
  std::vector<std::string> WorkFiles() {
    return env_->GetChildren(dir_ + "/work").value_or(std::vector<std::string>{});
  }

  std::function<void(std::string_view)> before_step;

 private:
  testutil::TempDir tmp_;
  std::unique_ptr<nutchfs::Env> env_;
  std::string dir_;
  std::vector<IterationReport> iterations_;
};

RankGraph Cycle(int n) {
  RankGraph g;
  for (int i = 0; i < n; ++i) g.pages.push_back({"http://c" + std::to_string(i) + ".example/", i});
  for (int i = 0; i < n; ++i) g.links.emplace_back(i, g.pages[(i + 1) % n].url);
  return g;
}

TEST_CASE("a cycle ranks every page 1.0, and one iteration changes nothing", "[rank]") {
  RankTestDb db(Cycle(5));
  const RankReport r = db.MustRank();
  CHECK(r.version == 3);
  CHECK(r.pages == 5);
  CHECK(r.info.done == 1);  // no change at all: below epsilon at once
  CHECK(r.info.l1 == 0);
  for (const Page& p : db.Dump().pages_by_url) {
    CHECK(p.score == 1.0f);
    CHECK(p.next_score == 1.0f);
  }
}

TEST_CASE("a star: every leaf links to the centre, which links nowhere", "[rank]") {
  RankGraph g;
  g.pages.push_back({"http://centre.example/", 0});
  const int leaves = 9;
  for (int i = 1; i <= leaves; ++i) {
    g.pages.push_back({"http://leaf" + std::to_string(i) + ".example/", i});
    g.links.emplace_back(i, "http://centre.example/");
  }
  RankTestDb db(g);
  db.MustRank({200, 0, 0.85});
  // The fixed point: r_leaf = 0.15 + 0.85 r_centre / N and the scores sum to N.
  const double n = leaves + 1;
  const double leaf = 1 / (1 + 0.85 * leaves / n);
  CHECK(std::fabs(db.ScoreOf("http://leaf1.example/") - leaf) < 1e-6);
  CHECK(std::fabs(db.ScoreOf("http://centre.example/") - (n - leaves * leaf)) < 1e-5);
}

TEST_CASE("known graphs match the spec's computation", "[rank]") {
  RankGraph g;
  SECTION("a chain with a dangling end") {
    for (int i = 0; i < 4; ++i) g.pages.push_back({"http://chain" + std::to_string(i) + "/", i});
    for (int i = 0; i < 3; ++i) g.links.emplace_back(i, g.pages[i + 1].url);
  }
  SECTION("one content at several urls: each of them links") {
    for (int i = 0; i < 3; ++i) g.pages.push_back({"http://copy" + std::to_string(i) + "/", 7});
    g.pages.push_back({"http://target/", 1});
    g.pages.push_back({"http://other/", 2});
    g.links.emplace_back(7, "http://target/");
    g.links.emplace_back(2, "http://copy0/");
  }
  SECTION("self-links are dropped per page, so pages of one content differ in outdeg") {
    g.pages.push_back({"http://self0/", 3});
    g.pages.push_back({"http://self1/", 3});
    g.pages.push_back({"http://t/", 4});
    g.pages.push_back({"http://alone/", 5});
    g.links.emplace_back(3, "http://self0/");
    g.links.emplace_back(3, "http://t/");
    g.links.emplace_back(4, "http://self1/");
    g.links.emplace_back(5, "http://alone/");  // its only link: a dangling page
  }
  SECTION("scores that start away from 1") {
    g = Cycle(4);
    g.pages[0].score = 3.5f;
    g.pages[1].score = 0;
    g.pages[2].score = -1.25f;
  }
  RankTestDb db(g);
  const RankOptions options{30, 0, 0.85};
  const testutil::ReferenceRank expected = testutil::RankByDefinition(db.Dump(), options);
  db.MustRank(options);
  CHECK(testutil::CompareScores(expected, db.Dump(), 1e-6) == "");
}

TEST_CASE("random graphs match a dense power iteration", "[rank][random]") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    const RankGraph g = RankGraph::Random(seed, 300, 200, 12, /*scores=*/seed % 2 == 0);
    RankTestDb db(g);
    const RankOptions options{10, 1e-4, seed == 3 ? 0.5 : 0.85};
    const testutil::ReferenceRank expected = testutil::RankByDefinition(db.Dump(), options);
    const RankReport r = db.MustRank(options);
    CHECK(r.info.done == expected.done);
    CHECK(std::fabs(r.info.l1 - expected.l1) < 1e-6);
    CHECK(testutil::CompareScores(expected, db.Dump(), 1e-6) == "");
    REQUIRE(db.iterations().size() == r.info.done);
    CHECK(db.iterations().back().l1 == r.info.l1);
  }
}

TEST_CASE("the page tables are the same bytes whatever the memory budget and blocks", "[rank]") {
  const RankGraph g = RankGraph::Random(7, 400, 250, 10, true);
  RankTestDb reference(g, "reference");
  reference.MustRank();
  const std::string expected = reference.PageTableBytes();
  // One block of every id, blocks of a few ids (many blocks, the sums read again for
  // each), and budgets that spill every sort (16 KiB: runs of a few hundred edits).
  for (auto [memory, block_ids] : {std::pair<size_t, uint64_t>{1 << 20, 0},
                                   {64 << 20, 1},
                                   {64 << 20, 7},
                                   {64 << 20, 128},
                                   {16 << 10, 0},
                                   {16 << 10, 3}}) {
    CAPTURE(memory, block_ids);
    RankTestDb db(g);
    // Each stream is whole (and spilled, if it must) when the step that reads it begins.
    bool urls_spilled = false, edges_spilled = false;
    db.before_step = [&](std::string_view step) {
      for (const std::string& f : db.WorkFiles()) {
        urls_spilled |= step == "rank links" && f.starts_with("rank-urls-run-");
        edges_spilled |= step == "rank edges" && f.starts_with("rank-edges-run-");
      }
    };
    db.MustRank({}, memory, block_ids);
    CHECK(db.PageTableBytes() == expected);
    CHECK(urls_spilled == (memory < (1 << 20)));
    CHECK(edges_spilled == (memory < (1 << 20)));
  }
}

// docs/DESIGN.md, "Layered tables": a rank reads the tables' layers, writes its page
// tables as new bases (their runs dropped) and keeps the link tables' runs.
TEST_CASE("a rank on layered tables writes the same page tables, and keeps the links' runs",
          "[rank][layered]") {
  const RankGraph g = RankGraph::Random(11, 300, 200, 10, true);
  RankTestDb reference(g, "reference");
  reference.MustRank();
  RankTestDb db(g);
  REQUIRE(testutil::LayerCurrentVersion(db.env(), db.dir(), 3, 4).ok());
  const Manifest layered = db.Current();
  uint64_t runs = 0;
  for (const TableRuns& r : layered.runs) runs += r.size();
  REQUIRE(runs > 0);
  db.MustRank();
  CHECK(db.PageTableBytes() == reference.PageTableBytes());
  const Manifest ranked = db.Current();
  CHECK(ranked.runs_of(TableId::kPagesByUrl).empty());
  CHECK(ranked.runs_of(TableId::kPagesByMd5).empty());
  for (TableId t : {TableId::kLinksByMd5, TableId::kLinksByUrl}) {
    CHECK(ranked.table(t) == layered.table(t));
    CHECK(ranked.runs_of(t) == layered.runs_of(t));
  }
  CHECK(testutil::CompareDumps(reference.Dump(), db.Dump()) == "");
}

TEST_CASE("a rank is a version: links shared, rank line, idempotent, kept and rolled back",
          "[rank]") {
  const RankGraph g = RankGraph::Random(11, 60, 40, 6, false);
  RankTestDb db(g);
  const Manifest before = db.Current();
  const RankReport r = db.MustRank({3, 0, 0.85});
  const Manifest after = db.Current();
  CHECK(after.version == before.version + 1);
  CHECK(after.table(TableId::kLinksByMd5) == before.table(TableId::kLinksByMd5));
  CHECK(after.table(TableId::kLinksByUrl) == before.table(TableId::kLinksByUrl));
  CHECK(after.table(TableId::kPagesByUrl) != before.table(TableId::kPagesByUrl));
  REQUIRE(after.rank.has_value());
  CHECK(*after.rank == r.info);
  CHECK(r.info.done == 3);
  CHECK(testutil::VerifyFindings(db.env(), db.dir(), db.dir() + "-scratch") == "");

  // The same rank again finds its result current: nothing to do.
  const RankReport again = db.MustRank({3, 0, 0.85});
  CHECK(again.already_ranked);
  CHECK(db.Current().version == after.version);
  // Other options rank from the ranked scores.
  CHECK_FALSE(db.MustRank({4, 0, 0.85}).already_ranked);
  CHECK(db.Current().version == after.version + 1);

  // The first rank's version is kept, and a rollback restores its scores.
  const testutil::DbDump first_rank = db.Dump(after.version);
  auto rolled = RollbackDb(db.env(), db.dir(), after.version, {});
  REQUIRE(rolled.has_value());
  CHECK(db.Current().rank == after.rank);  // the rolled-back tables' rank line
  CHECK(testutil::CompareDumps(first_rank, db.Dump()) == "");

  // An update's version carries no rank line: its scores are no rank's.
  REQUIRE(testutil::RunSession(db.env(), db.dir(),
                               {testutil::AddPageCall(Page::WithDefaults("http://new/"))})
              .ok());
  CHECK_FALSE(db.Current().rank.has_value());
}

TEST_CASE("a rank with bad options or while a writer holds the lock changes nothing", "[rank]") {
  RankTestDb db(Cycle(3));
  const Manifest before = db.Current();
  for (RankOptions bad : {RankOptions{0, 1e-4, 0.85}, RankOptions{10, -1, 0.85},
                          RankOptions{10, 1e-4, 1}, RankOptions{10, 1e-4, -0.1}}) {
    auto r = db.Rank(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().IsInvalidArgument());
  }
  {
    auto writer = Writer::Open(db.env(), db.dir(), {});
    REQUIRE(writer.has_value());
    auto r = db.Rank();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().IsBusy());
    CHECK_THAT(r.error().ToString(), Catch::Contains("LOCK"));
  }
  CHECK(db.Current() == before);
  CHECK_FALSE(db.env().FileExists(db.dir() + "/work"));
}

TEST_CASE("an empty db has nothing to rank, and a score beyond 2^30 is refused", "[rank]") {
  RankTestDb empty(RankGraph{});
  const RankReport r = empty.MustRank();
  CHECK(r.pages == 0);
  CHECK(r.version == empty.Current().version);

  RankGraph g = Cycle(3);
  g.pages[1].score = 3e9f;
  RankTestDb db(g);
  const Manifest before = db.Current();
  auto bad = db.Rank();
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().IsInvalidArgument());
  CHECK_THAT(bad.error().ToString(), Catch::Contains("http://c1.example/"));
  CHECK(db.Current() == before);
}

}  // namespace
}  // namespace webdb
