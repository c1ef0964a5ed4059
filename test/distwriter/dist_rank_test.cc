// Rank rounds (docs/DISTRIBUTED.md, "Rank rounds"): k writers, threads of this process
// over one in-memory Env, rank their sections together and get exactly the tables one
// machine gets — for any k, memory budget and thread timing — as one new round that a
// rerun finds applied.
#include <signal.h>

#include <catch2/catch.hpp>

#include "distwriter/round_store.h"
#include "nutchfs/mem_env.h"
#include "nutchfs/nutchfs.h"
#include "test/util/dist_cluster.h"
#include "test/util/rank_graph.h"
#include "test/util/thread_cluster.h"
#include "webdb/db/reader.h"
#include "webdb/db/writer.h"
#include "webdb/rank/rank_db.h"

namespace distwriter {
namespace {

using testutil::ProcessResult;
using testutil::RankGraph;
using testutil::ThreadCluster;

// The session cut into k contiguous slices (writer 0's first: the calls' order).
std::vector<testutil::Session> Slices(const testutil::Session& s, int k) {
  std::vector<testutil::Session> slices(k);
  for (size_t i = 0; i < s.size(); ++i) slices[i * k / s.size()].push_back(s[i]);
  return slices;
}

// The single machine's rank of the session's db.
testutil::DbDump SingleRank(const testutil::Session& s, const webdb::RankOptions& options) {
  auto env = nutchfs::NewMemEnv();
  REQUIRE(webdb::Writer::Create(*env, "/single").ok());
  REQUIRE(testutil::RunSession(*env, "/single", s).ok());
  webdb::RankParams params;
  params.dir = "/single";
  params.options = options;
  auto r = webdb::RankDb(*env, params);
  INFO((r ? "" : r.error().ToString()));
  REQUIRE(r.has_value());
  auto reader = webdb::Reader::Open(*env, "/single");
  REQUIRE(reader.has_value());
  auto dump = testutil::DumpDb(**reader);
  REQUIRE(dump.has_value());
  return *dump;
}

// A distributed db of k writers holding the session (one round).
struct RankCluster {
  RankCluster(int k, const testutil::Session& s) : cluster(k, 60000), env(nutchfs::NewMemEnv()) {
    ThreadCluster::Prepare(*env);
    REQUIRE(cluster.Create(*env).ok());
    auto ran = cluster.Run(*env, ThreadCluster::WriteCalls(*env, "load", Slices(s, k)));
    for (auto& r : ran) {
      INFO((r ? "" : r.error().ToString()));
      REQUIRE(r.has_value());
    }
  }
  std::vector<RoundReport> Rank(const webdb::RankOptions& options, size_t memory) {
    std::vector<RoundReport> reports;
    for (auto& r : cluster.Rank(*env, options, memory)) {
      INFO((r ? "" : r.error().ToString()));
      REQUIRE(r.has_value());
      reports.push_back(*r);
    }
    return reports;
  }
  testutil::DbDump Dump() {
    auto dump = cluster.Dump(*env);
    REQUIRE(dump.has_value());
    return *dump;
  }
  RoundManifest Installed() {
    auto fs = nutchfs::NutchFs::Open(cluster.config().cluster, cluster.config().writer_machines[0],
                                     {env.get()});
    REQUIRE(fs.has_value());
    RoundStore store(**fs, cluster.config(), "/tmp");
    auto round = store.ReadInstalled();
    REQUIRE(round.has_value());
    return *round;
  }

  ThreadCluster cluster;
  std::unique_ptr<nutchfs::Env> env;
};

TEST_CASE("k writers rank to the single machine's tables, for k = 1..4 and any budget",
          "[distwriter][rank]") {
  const testutil::Session s = RankGraph::Random(21, 400, 250, 10, true).ToSession();
  const webdb::RankOptions options{6, 1e-4, 0.85};
  const testutil::DbDump expected = SingleRank(s, options);
  for (int k = 1; k <= 4; ++k) {
    // 256 KiB: one block a writer; 4 KiB: blocks of a few dozen pages, every sort spilled.
    for (size_t memory : {size_t{256} << 10, size_t{4} << 10}) {
      CAPTURE(k, memory);
      RankCluster db(k, s);
      const std::vector<RoundReport> reports = db.Rank(options, memory);
      CHECK(testutil::CompareDumps(expected, db.Dump()) == "");
      const RoundManifest round = db.Installed();
      REQUIRE(round.rank.has_value());
      CHECK(round.rank->options == options);
      for (const RoundReport& r : reports) {
        CHECK(r.version == round.version);
        CHECK_FALSE(r.already_applied);
        CHECK(r.rank == round.rank);
      }
      // The same rank again finds its result installed.
      for (const RoundReport& r : db.Rank(options, memory)) CHECK(r.already_applied);
      CHECK(db.Installed().version == round.version);
    }
  }
}

// The findings of verify but the temporary round files of meta/ that a writer stopped by
// launch (SIGTERM) while it wrote one leaves behind: the commit's, whoever runs the round,
// and no clean-up removes them (an issue of its own).
std::string TableFindings(const std::string& findings) {
  std::string kept;
  size_t at = 0;
  while (at < findings.size()) {
    const size_t end = findings.find('\n', at);
    const std::string line = findings.substr(at, end == std::string::npos ? end : end - at + 1);
    at = end == std::string::npos ? findings.size() : end + 1;
    const bool meta_tmp = line.find("/meta/") != std::string::npos &&
                          line.find("temporary file of an interrupted write") != std::string::npos;
    if (!meta_tmp) kept += line;
  }
  return kept;
}

// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kKillable = PROJECT_BINARY_DIR "/test/killable/distwriter";

// Under `distwriter launch --rank`, writer 1 of three is killed as each step of a rank
// round begins (the others are stopped by launch): the same launch again leaves the db as
// one uninterrupted rank does, on every machine.
TEST_CASE("launch --rank with writer 1 killed at each step, then launched again",
          "[distwriter][rank][fault]") {
  const testutil::Session s = RankGraph::Random(22, 200, 120, 8, true).ToSession();
  const webdb::RankOptions options{3, 1e-4, 0.85};
  const testutil::DbDump expected = SingleRank(s, options);
  testutil::DistCluster db(kKillable, 3);
  db.Create();
  db.RunRound(Slices(s, 3));
  int n = 0;
  auto launch = [&](const std::vector<std::string>& env) {
    return testutil::RunProcess(
        {kKillable, "launch", "--config", db.config(), "--rank", "--iterations", "3", "--quiet"},
        env, db.dir().File("launch-" + std::to_string(n++)));
  };
  for (const char* point : {"stage 0", "rank graph", "rank links", "rank edges",
                            "rank iteration 2 sums", "rank iteration 2 scores", "rank publish",
                            "commit", "commit decide", "commit install", "done"}) {
    CAPTURE(point);
    const uint64_t unranked = db.Committed().version;
    const ProcessResult killed =
        launch({std::string("WEBDB_KILL_AT=") + point, "WEBDB_KILL_WRITER=1"});
    INFO(killed.Describe());
    REQUIRE(killed.exit_code == 4);
    CHECK_THAT(killed.err, Catch::Contains("writer 1 (machine m1) (killed by signal 9 (SIGKILL))"));
    const ProcessResult again = launch({});
    INFO(again.Describe() << again.out);
    REQUIRE(again.exit_code == 0);
    CHECK(testutil::CompareDumps(expected, db.Dump()) == "");
    for (int w = 0; w < 3; ++w) {
      const RoundManifest round = db.Committed(w);
      CHECK(round.version == unranked + 1);
      CHECK((round.rank && round.rank->options == options));
    }
    CHECK(TableFindings(db.VerifyFindings()) == "");
    // The rank undone for the next point: the unranked tables current again.
    const ProcessResult rolled =
        testutil::RunProcess({PROJECT_BINARY_DIR "/tools/webdb", "rollback", "--config",
                              db.config(), std::to_string(unranked), "-q"},
                             {}, db.dir().File("rollback-" + std::to_string(n++)));
    INFO(rolled.Describe());
    REQUIRE(rolled.exit_code == 0);
  }
}

}  // namespace
}  // namespace distwriter
