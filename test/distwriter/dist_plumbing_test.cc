// DistPlumbing in a real round: what a writer's work directory holds while its stages
// run (the files it sends are moved into their receivers' groups at once).
#include "distwriter/dist_plumbing.h"

#include <signal.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>

#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"

namespace distwriter {
namespace {

// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kDistwriter = PROJECT_BINARY_DIR "/test/killable/distwriter";

// The edit files in writer w's work directory.
std::set<std::string> WorkFiles(const testutil::DistCluster& cluster, int w) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(cluster.GroupDir(w) + "/work")) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".edits")) names.insert(name);
  }
  return names;
}

}  // namespace

// Every stage's own section is kept in the sorter, but stage 1's in a db's first round
// (its url breakpoints are chosen after the calls were logged): before stage 2 that one
// is a file in the work directory. Stage 3's edits are read again by stage 5: before
// stage 4 a file of them would still be there.
TEST_CASE("a writer's own section is kept in its sorter, not written, once its bounds are known",
          "[distwriter]") {
  testutil::GenOptions options;
  options.min_calls = 50;
  options.hostile_bytes = false;  // call files carry valid UTF-8 only
  testutil::SessionGenerator gen(11, options);
  testutil::DistCluster cluster(kDistwriter, 3);
  cluster.Create();  // no sample: the first round chooses the url breakpoints
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    const testutil::Session session = gen.Next();
    std::mt19937_64 cuts(round);
    const std::vector<testutil::Session> slices = testutil::SplitSession(session, 3, cuts);
    std::vector<std::unique_ptr<testutil::Subprocess>> writers(3);
    for (int i : {0, 2}) writers[i] = cluster.StartWriter(i, cluster.WriteCallFile(i, slices[i]));
    for (const char* step : {"stage 2", "stage 4"}) {
      CAPTURE(step);
      writers[1] = cluster.StartWriter(1, cluster.WriteCallFile(1, slices[1]),
                                       {std::string("WEBDB_KILL_AT=") + step});
      const testutil::ProcessResult killed = writers[1]->Wait();
      INFO(killed.Describe());
      REQUIRE(killed.KilledBy(SIGKILL));
      std::set<std::string> own;  // out-s<stage>-to1.edits; those for 0 and 2 were sent
      for (const std::string& name : WorkFiles(cluster, 1)) {
        if (name.starts_with("out-")) own.insert(name);
      }
      const bool stage1_file = round == 0 && std::string(step) == "stage 2";
      CHECK(own == (stage1_file ? std::set<std::string>{"out-s1-to1.edits"}
                                : std::set<std::string>{}));
    }
    writers[1] = cluster.StartWriter(1, cluster.WriteCallFile(1, slices[1]));
    for (auto& w : writers) {
      const testutil::ProcessResult done = w->Wait();
      INFO(done.Describe());
      REQUIRE(done.exit_code == 0);
    }
  }
}

}  // namespace distwriter
