// `webdb rank` as a user runs it: options out of range are usage errors, a writer's lock
// refuses it, --json summarizes it, and — with the crash tests' build (kill points,
// tools/step_observer.h) — a rank killed as any of its steps begins leaves the db at its
// version or at the finished rank, and run again gives the page tables an uninterrupted
// rank gives.
#include <signal.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "test/util/call_writer.h"
#include "test/util/dist_cluster.h"
#include "test/util/rank_graph.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "webdb/db/manifest.h"
#include "webdb/db/writer.h"

namespace tools {
namespace {

using testutil::ProcessResult;

const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";
const std::string kKillable = PROJECT_BINARY_DIR "/test/killable/webdb";

class RankCliDb {
 public:
  RankCliDb() : env_(nutchfs::NewLocalEnv()), db_(tmp_.File("db")) {
    Must({kWebdb, "create", db_});
    const std::string calls = tmp_.File("calls.jsonl");
    testutil::WriteCallFile(calls, testutil::RankGraph::Random(3, 500, 300, 8, true).ToSession());
    Must({kWebdb, "apply", "-q", db_, calls});
  }

  const std::string& db() const { return db_; }
  nutchfs::Env& env() { return *env_; }
  ProcessResult Run(const std::vector<std::string>& argv,
                    const std::vector<std::string>& env = {}) {
    return testutil::RunProcess(argv, env, tmp_.File(std::to_string(runs_++)));
  }
  ProcessResult Must(const std::vector<std::string>& argv) {
    ProcessResult r = Run(argv);
    INFO(r.Describe());
    REQUIRE(r.exit_code == 0);
    return r;
  }
  webdb::Manifest Current() {
    auto m = webdb::ReadCurrentManifest(*env_, db_);
    REQUIRE(m.has_value());
    return *m;
  }
  // The contents of the current version's page tables.
  std::string PageTables() {
    const webdb::Manifest m = Current();
    std::string bytes;
    for (webdb::TableId t : {webdb::TableId::kPagesByUrl, webdb::TableId::kPagesByMd5}) {
      for (const webdb::TableFile& f : m.table(t)) {
        bytes += testutil::ReadFileOrEmpty(db_ + "/" + f.name);
      }
    }
    return bytes;
  }

 private:
  testutil::TempDir tmp_;
  std::unique_ptr<nutchfs::Env> env_;
  std::string db_;
  int runs_ = 0;
};

TEST_CASE("rank: bad options exit 2, a writer's lock exit 4, --json a summary") {
  RankCliDb db;
  for (std::vector<std::string> bad : {std::vector<std::string>{"--iterations", "0"},
                                       {"--damping", "1"},
                                       {"--damping", "-0.5"},
                                       {"--epsilon", "-1"},
                                       {"--epsilon", "abc"},
                                       {"--iterations", "x"},
                                       {"--keep", "3"}}) {
    std::vector<std::string> argv = {kWebdb, "rank", db.db()};
    argv.insert(argv.end(), bad.begin(), bad.end());
    ProcessResult r = db.Run(argv);
    INFO(r.Describe());
    CHECK(r.exit_code == 2);
  }
  {
    auto writer = webdb::Writer::Open(db.env(), db.db(), {});
    REQUIRE(writer.has_value());
    ProcessResult r = db.Run({kWebdb, "rank", db.db()});
    INFO(r.Describe());
    CHECK(r.exit_code == 4);
    // A live writer of this host holds it: `webdb unlock` would refuse, so it is not offered.
    CHECK_THAT(r.err, Catch::Contains(db.db() + "/LOCK") && Catch::Contains("live pid") &&
                          !Catch::Contains("webdb unlock"));
  }
  CHECK(db.Current().version == 2);

  ProcessResult r = db.Must({kWebdb, "rank", db.db(), "--json", "--iterations", "4"});
  CHECK_THAT(r.out, Catch::StartsWith("{\"version\":3,\"alreadyRanked\":false,\"pages\":500,"));
  CHECK_THAT(r.out, Catch::Contains("\"options\":{\"iterations\":4,\"epsilon\":0.0001,"
                                    "\"damping\":0.85},\"iterations\":4,\"l1\":"));
  CHECK_THAT(r.err, Catch::Contains("webdb: rank iteration 4: L1 change"));
  ProcessResult again = db.Must({kWebdb, "rank", db.db(), "--iterations", "4", "-q"});
  CHECK(again.err.empty());
  CHECK(db.Current().version == 3);
}

TEST_CASE("rank killed as each step begins: rerun gives the uninterrupted page tables", "[fault]") {
  RankCliDb db;
  db.Must({kWebdb, "rank", db.db(), "-q", "--iterations", "3", "--memory", "1M"});
  const std::string expected = db.PageTables();
  const webdb::RankInfo expected_rank = *db.Current().rank;
  for (const char* step :
       {"rank graph", "rank links", "rank edges", "rank iteration 1", "rank iteration 2 scores",
        "rank iteration 3 sums", "rank publish", "publish", "current", "collect"}) {
    CAPTURE(step);
    // The version before the last rank: its tables current again, unranked.
    db.Must({kWebdb, "rollback", db.db(), std::to_string(db.Current().version - 1), "-q"});
    const uint64_t before = db.Current().version;
    REQUIRE_FALSE(db.Current().rank.has_value());
    ProcessResult killed =
        db.Run({kKillable, "rank", db.db(), "-q", "--iterations", "3", "--memory", "1M"},
               {std::string("WEBDB_KILL_AT=") + step});
    INFO(killed.Describe());
    REQUIRE(killed.KilledBy(SIGKILL));
    // Killed before CURRENT switched, the db is at its version; after, at the rank's.
    const bool switched = std::string_view(step) == "collect";
    CHECK(db.Current().version == before + (switched ? 1 : 0));
    ProcessResult rerun =
        db.Must({kWebdb, "rank", db.db(), "--json", "--iterations", "3", "--memory", "1M"});
    CHECK_THAT(rerun.out,
               Catch::Contains(switched ? "\"alreadyRanked\":true" : "\"alreadyRanked\":false"));
    CHECK(db.PageTables() == expected);
    CHECK(db.Current().rank == expected_rank);
    CHECK(db.Must({kWebdb, "verify", db.db(), "-q"}).out.empty());
  }
}

TEST_CASE("rank --config: the k writers rank a distributed db to the single machine's tables") {
  RankCliDb single;
  single.Must({kWebdb, "rank", single.db(), "-q", "--iterations", "5"});
  testutil::DistCluster cluster(PROJECT_BINARY_DIR "/tools/distwriter", 2);
  cluster.Create();
  const std::string calls = cluster.dir().File("calls.jsonl");
  testutil::WriteCallFile(calls, testutil::RankGraph::Random(3, 500, 300, 8, true).ToSession());
  single.Must({PROJECT_BINARY_DIR "/tools/distwriter", "launch", "--config", cluster.config(),
               "--quiet", calls});
  ProcessResult r =
      single.Must({kWebdb, "rank", "--config", cluster.config(), "--iterations", "5", "--json"});
  CHECK_THAT(r.out, Catch::Contains("\"alreadyRanked\":false,\"pages\":500,"));
  CHECK_THAT(r.err, Catch::Contains("version 3: 500 pages, 5 iterations"));
  for (const char* table : {"pagesByURL", "pagesByMD5"}) {
    CHECK(single.Must({kWebdb, "dump", "--config", cluster.config(), "--table", table}).out ==
          single.Must({kWebdb, "dump", single.db(), "--table", table}).out);
  }
  CHECK_THAT(
      single
          .Must({kWebdb, "rank", "--config", cluster.config(), "--iterations", "5", "--json", "-q"})
          .out,
      Catch::Contains("\"alreadyRanked\":true"));
}

}  // namespace
}  // namespace tools
