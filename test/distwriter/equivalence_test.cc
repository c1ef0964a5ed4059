// The distributed writer against the single-machine writer and the model: random
// sessions, each cut into k contiguous slices at random points, one slice per `distwriter
// run` process, k processes at once; after every round the distributed db (read through
// OpenDistReader) must equal, table by table and in both counts, the single-machine db
// fed the whole session and the model (spec/webdb-semantics.md, "Distributed order"),
// and `webdb verify --config` must find nothing.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <set>

#include "distwriter/dist_config.h"
#include "distwriter/round_versions.h"
#include "test/util/dist_cluster.h"
#include "test/util/layer_tables.h"
#include "webdb/db/compact.h"
#include "test/util/model_db.h"
#include "test/util/session_gen.h"

namespace distwriter {
namespace {

using testutil::DistCluster;
using testutil::ModelDb;
using testutil::Session;
using testutil::SessionGenerator;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
constexpr int kRoundsPerDb = 4;

// Call files carry only valid UTF-8 (webdb/calls/json_out.h), so no hostile bytes here; quotes,
// backslashes, long urls and long anchors remain.
testutil::GenOptions SmallSessions() {
  testutil::GenOptions o;
  o.universe_urls = 60;
  o.hostile_bytes = false;
  return o;
}

// Big enough that --memory 1M (a third of it per sorter) spills sorted runs.
testutil::GenOptions BigSessions() {
  testutil::GenOptions o = SmallSessions();
  o.universe_urls = 400;
  o.min_calls = 1500;
  o.max_calls = 2500;
  o.long_anchor_chance = 0.02;
  return o;
}

struct DbPlan {
  int k = 1;
  bool sample = false;
  uint64_t seed = 0;
  // After each round, every section's tables republished as bases and runs making the
  // same rows (test/util/layer_tables.h), read and merged by the next round.
  bool layered = false;
};

// Sessions of one db: round (k % kRoundsPerDb) is big and runs with --memory 1M.
std::vector<Session> MakeSessions(const DbPlan& plan, int* big_round) {
  SessionGenerator small(plan.seed, SmallSessions());
  SessionGenerator big(plan.seed + 1000, BigSessions());
  *big_round = plan.k % kRoundsPerDb;
  std::vector<Session> sessions;
  for (int r = 0; r < kRoundsPerDb; ++r)
    sessions.push_back(r == *big_round ? big.Next() : small.Next());
  return sessions;
}

// Every url of every page call: the --sample of a db made with one.
std::vector<std::string> SampleOf(const std::vector<Session>& sessions) {
  std::set<std::string> urls;
  for (const Session& s : sessions) {
    for (const webdb::Call& c : s) {
      if (c.op != webdb::Call::Op::kAddLink) urls.insert(testutil::PageUrl(c));
    }
  }
  return {urls.begin(), urls.end()};
}

void CheckReports(const std::vector<testutil::RunReport>& reports,
                  const std::vector<Session>& slices, uint64_t version,
                  const testutil::DbDump& expected) {
  for (size_t i = 0; i < reports.size(); ++i) {
    CAPTURE(i);
    CHECK(reports[i].version == version);
    CHECK_FALSE(reports[i].already_applied);
    CHECK(reports[i].calls == slices[i].size());
    CHECK(reports[i].pages == expected.num_pages);
    CHECK(reports[i].links == expected.num_links);
  }
}

// Sections of a committed round must add up to the counts; with a sample and enough
// pages, more than one section holds pages.
void CheckSections(const DistCluster& cluster, const DbPlan& plan, const testutil::DbDump& dump) {
  const RoundManifest round = cluster.Committed(0);
  REQUIRE(round.k == plan.k);
  uint64_t pages = 0;
  int non_empty = 0;
  for (const webdb::Manifest& m : round.sections) {
    const uint64_t n = m.records(webdb::TableId::kPagesByUrl);
    pages += n;
    non_empty += n > 0 ? 1 : 0;
  }
  CHECK(pages == dump.num_pages);
  if (plan.sample && plan.k > 1 && dump.num_pages >= static_cast<uint64_t>(8 * plan.k)) {
    CHECK(non_empty > 1);
  }
  for (int i = 1; i < plan.k; ++i) CHECK(cluster.Committed(i) == round);
}

// Republishes the cluster's round with layered sections; the db must read the same.
void LayerSections(DistCluster& cluster, uint64_t seed, const testutil::DbDump& expected) {
  auto config = DistConfig::Load(cluster.config());
  REQUIRE(config.has_value());
  auto rewritten = RewriteDistSections(
      *config,
      [seed](int i, nutchfs::Env& env, const std::string& dir, const webdb::Manifest& old,
             uint64_t version) {
        return testutil::LayeredCopy(env, dir, old, version, seed + i, 3);
      },
      {});
  INFO("layering: " << (rewritten ? "" : rewritten.error().ToString()));
  REQUIRE(rewritten.has_value());
  uint64_t runs = 0;
  for (const webdb::Manifest& section : cluster.Committed(0).sections) {
    for (const webdb::TableRuns& table_runs : section.runs) runs += table_runs.size();
  }
  CHECK((runs > 0 || expected.num_pages + expected.num_links == 0));
  REQUIRE(testutil::CompareDumps(expected, cluster.Dump()) == "");
  REQUIRE(cluster.VerifyFindings() == "");
}

// `webdb compact --config`'s rewrite: every section's runs merged into its bases.
void CompactSections(DistCluster& cluster, const testutil::DbDump& expected) {
  auto config = DistConfig::Load(cluster.config());
  REQUIRE(config.has_value());
  const uint64_t before = cluster.Committed(0).version;
  auto compacted = RewriteDistSections(
      *config,
      [](int, nutchfs::Env& env, const std::string& dir, const webdb::Manifest& old,
         uint64_t version) { return webdb::CompactTables(env, dir, old, version); },
      {});
  INFO("compaction: " << (compacted ? "" : compacted.error().ToString()));
  REQUIRE(compacted.has_value());
  CHECK(*compacted == before + 1);
  for (const webdb::Manifest& section : cluster.Committed(0).sections) {
    for (const webdb::TableRuns& table_runs : section.runs) CHECK(table_runs.empty());
  }
  REQUIRE(testutil::CompareDumps(expected, cluster.Dump()) == "");
  REQUIRE(cluster.VerifyFindings() == "");
}

void RunDb(const DbPlan& plan) {
  int big_round = 0;
  const std::vector<Session> sessions = MakeSessions(plan, &big_round);
  DistCluster cluster(kDistwriter, plan.k);
  cluster.Create(plan.sample ? SampleOf(sessions) : std::vector<std::string>{});
  webdb::WriterOptions single_options;
  single_options.memory_budget = size_t{1} << 20;
  ModelDb single(single_options);
  std::mt19937_64 cuts(plan.seed * 7919 + 17);
  for (int r = 0; r < kRoundsPerDb; ++r) {
    CAPTURE(plan.seed, plan.k, plan.sample, r, sessions[r].size());
    const std::vector<Session> slices = testutil::SplitSession(sessions[r], plan.k, cuts);
    std::vector<std::string> flags;
    if (r == big_round) flags = {"--memory", "1M"};
    const auto reports = cluster.RunRound(slices, flags);
    const webdb::Status applied = single.Apply(sessions[r]);
    INFO("single-machine apply: " << applied.ToString());
    REQUIRE(applied.ok());
    auto expected = single.Dump();
    REQUIRE(expected.has_value());
    const testutil::DbDump actual = cluster.Dump();
    INFO("session:\n" << testutil::FormatSession(sessions[r], 40));
    REQUIRE(testutil::CompareDumps(*expected, actual) == "");
    REQUIRE(testutil::CompareDumps(single.model().ToDump(), actual) == "");
    REQUIRE(testutil::CheckInvariants(actual) == "");
    REQUIRE(cluster.VerifyFindings() == "");
    CheckReports(reports, slices, static_cast<uint64_t>(plan.layered ? 2 * r : r) + 2,
                 actual);
    CheckSections(cluster, plan, actual);
    if (plan.layered) LayerSections(cluster, plan.seed * 100 + r, actual);
  }
  if (plan.layered) CompactSections(cluster, cluster.Dump());
}

// WEBDB_TEST_K=k runs only that k (for reproducing a failure).
void RunAllK(bool sample, uint64_t first_seed, bool layered = false) {
  const auto start = std::chrono::steady_clock::now();
  const char* only = std::getenv("WEBDB_TEST_K");
  for (int k = 1; k <= 8; ++k) {
    if (only != nullptr && std::atoi(only) != k) continue;
    RunDb({k, sample, first_seed + static_cast<uint64_t>(k), layered});
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("k = 1..8, " << kRoundsPerDb << " rounds each, sample " << sample << ": " << seconds
                    << " s");
}

TEST_CASE("distributed rounds without a sample equal the single-machine writer, k = 1..8",
          "[random]") {
  RunAllK(false, 100);
}

TEST_CASE("distributed rounds with a url sample equal the single-machine writer, k = 1..8",
          "[random]") {
  RunAllK(true, 200);
}

TEST_CASE("distributed rounds on layered sections equal the single-machine writer, k = 1..8",
          "[random][layered]") {
  RunAllK(true, 300, true);
}

}  // namespace
}  // namespace distwriter
