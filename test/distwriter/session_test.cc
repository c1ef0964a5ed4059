// Sessions (docs/DISTRIBUTED.md, "Sessions: a new launch is a new round"): the same calls
// launched twice are two sessions, applied twice as `webdb apply` twice would; a rerun of
// an interrupted launch is its continuation, its calls applied once whether or not the
// interrupted round was decided, without a writer waiting for peers or leaving a stage 0
// directory behind; `run --session` and `launch --session` name the session by hand.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "test/util/call_writer.h"
#include "test/util/dist_cluster.h"
#include "test/util/session.h"
#include "test/util/subprocess.h"

namespace distwriter {
namespace {

using testutil::ProcessResult;
using testutil::Session;

const std::string kDistwriter = PROJECT_BINARY_DIR "/test/killable/distwriter";
constexpr int kK = 3;

// The calls: addLink then addPageIfNotPresent with a link of the same key. One
// session leaves anchor "b", a second one "a".
Session AnchorSession() {
  webdb::Page y = webdb::Page::WithDefaults("http://y.example/");
  y.md5 = webdb::Md5Of("y");
  webdb::Link a;
  a.from = y.md5;
  a.url = "http://x.example/";
  a.anchor = "a";
  webdb::Link b = a;
  b.anchor = "b";
  return {testutil::AddPageCall(y), testutil::AddLinkCall(a),
          testutil::AddPageIfNotPresentCall(webdb::Page::WithDefaults("http://x.example/"), b)};
}

struct TestDb {
  TestDb() : cluster(kDistwriter, kK, 60000) {
    cluster.Create();
    calls = cluster.dir().File("calls.jsonl");
    testutil::WriteCallFile(calls, AnchorSession());
  }
  ProcessResult Launch(const std::vector<std::string>& env = {},
                       const std::vector<std::string>& flags = {}) {
    std::vector<std::string> argv = {kDistwriter, "launch", "--config", cluster.config(),
                                     "--quiet"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(calls);
    return testutil::Subprocess::Start(argv, env,
                                       cluster.dir().File("launch" + std::to_string(launches++)))
        ->Wait();
  }
  // Stage 0 directories (rounds/<N>/s0) in any writer's group.
  std::vector<std::string> StageZeroDirs() const {
    static const std::regex kStageZero(".*/rounds/[0-9]+/s0");
    std::vector<std::string> found;
    for (int i = 0; i < kK; ++i) {
      if (!std::filesystem::exists(cluster.GroupDir(i))) continue;
      for (const auto& e : std::filesystem::recursive_directory_iterator(cluster.GroupDir(i))) {
        if (std::regex_match(e.path().string(), kStageZero)) found.push_back(e.path().string());
      }
    }
    return found;
  }

  testutil::DistCluster cluster;
  std::string calls;
  int launches = 0;
};

TEST_CASE("sessions: the same calls launched twice are two rounds, as apply twice",
          "[distwriter]") {
  TestDb db;
  for (int n = 1; n <= 2; ++n) {
    ProcessResult r = db.Launch();
    INFO(r.Describe());
    REQUIRE(r.exit_code == 0);
    REQUIRE(db.cluster.Committed().version == uint64_t(1 + n));
  }
  testutil::CheckDistDbMatchesSingle(db.cluster.config(), {AnchorSession(), AnchorSession()});
  CHECK_FALSE(std::filesystem::exists(db.cluster.MetaDir(0) + "/LAUNCH"));
}

TEST_CASE("sessions: the rerun of an interrupted launch applies its calls once",
          "[distwriter][fault]") {
  TestDb db;
  // Killed after installing the round (decided, installed on some machines), or before
  // any writer decided it.
  const std::string point = GENERATE(as<std::string>{}, "done", "commit decide");
  CAPTURE(point);
  ProcessResult killed = db.Launch({"WEBDB_KILL_AT=" + point, "WEBDB_KILL_WRITER=1"});
  INFO(killed.Describe());
  REQUIRE(killed.exit_code == 4);
  CHECK(std::filesystem::exists(db.cluster.MetaDir(0) + "/LAUNCH"));
  ProcessResult rerun = db.Launch();
  INFO(rerun.Describe());
  REQUIRE(rerun.exit_code == 0);
  if (point == "done") CHECK_THAT(rerun.out, Catch::Contains("already applied in round 2"));
  for (int m = 0; m < kK; ++m) CHECK(db.cluster.Committed(m).version == 2);
  testutil::CheckDistDbMatchesSingle(db.cluster.config(), {AnchorSession()});
  CHECK(db.StageZeroDirs().empty());
  CHECK_FALSE(std::filesystem::exists(db.cluster.MetaDir(0) + "/LAUNCH"));
  // The next launch of the same calls is a new session.
  REQUIRE(db.Launch().exit_code == 0);
  CHECK(db.cluster.Committed().version == 3);
  testutil::CheckDistDbMatchesSingle(db.cluster.config(), {AnchorSession(), AnchorSession()});
}

TEST_CASE("sessions: run --session names the session by hand", "[distwriter]") {
  TestDb db;
  const std::vector<Session> slices = {AnchorSession(), {}, {}};
  db.cluster.RunRound(slices, {"--session", "crawl-1"});
  // The same session again: every writer finds its calls applied, at once.
  for (const testutil::RunReport& r : db.cluster.RunRound(slices, {"--session", "crawl-1"})) {
    CHECK(r.already_applied);
    CHECK(r.version == 2);
  }
  CHECK(db.StageZeroDirs().empty());
  // Another session: a new round, with the same calls.
  db.cluster.RunRound(slices, {"--session", "crawl-2"});
  CHECK(db.cluster.Committed().version == 3);
  testutil::CheckDistDbMatchesSingle(db.cluster.config(), {AnchorSession(), AnchorSession()});
}

TEST_CASE("sessions: launch --session names the session, and no launch record is kept",
          "[distwriter]") {
  TestDb db;
  const std::vector<std::string> crawl1 = {"--session", "crawl-1"};
  ProcessResult r = db.Launch({}, crawl1);
  INFO(r.Describe());
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(db.cluster.MetaDir(0) + "/LAUNCH"));
  // Killed after installing the round, or killed before it was decided: the launch of
  // the same session applies its calls once, as a rerun.
  const std::string point = GENERATE(as<std::string>{}, "done", "commit decide");
  CAPTURE(point);
  ProcessResult killed = db.Launch({"WEBDB_KILL_AT=" + point, "WEBDB_KILL_WRITER=1"},
                                   {"--session", "crawl-2"});
  INFO(killed.Describe());
  REQUIRE(killed.exit_code == 4);
  CHECK_FALSE(std::filesystem::exists(db.cluster.MetaDir(0) + "/LAUNCH"));
  ProcessResult rerun = db.Launch({}, {"--session", "crawl-2"});
  INFO(rerun.Describe());
  REQUIRE(rerun.exit_code == 0);
  if (point == "done") CHECK_THAT(rerun.out, Catch::Contains("already applied in round 3"));
  // The first session again: its round is no longer the installed one, so it is applied
  // again, as a third session.
  REQUIRE(db.Launch({}, crawl1).exit_code == 0);
  CHECK(db.cluster.Committed().version == 4);
  testutil::CheckDistDbMatchesSingle(db.cluster.config(),
                                     {AnchorSession(), AnchorSession(), AnchorSession()});
  CHECK(db.StageZeroDirs().empty());
}

TEST_CASE("sessions: launch --rank takes no --session", "[distwriter]") {
  TestDb db;
  ProcessResult r = testutil::Subprocess::Start({kDistwriter, "launch", "--config",
                                                 db.cluster.config(), "--rank", "--session", "x"},
                                                {}, db.cluster.dir().File("rank"))
                        ->Wait();
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--session goes with a round of calls"));
}

}  // namespace
}  // namespace distwriter
