// A distributed round where one writer's disk fills up: writer 1's machine root of a
// two-writer cluster is a size-limited tmpfs (test/util/tmpfs.h; needs root, fails if the
// mount does) with a filler file leaving room for about half of what the round adds.
// The round must fail (exit 4) with ENOSPC named, the operation and a file under that
// root; the db must stay at its version with no temporary file left on either machine;
// and once the filler is deleted the same writers, run again, must give the
// single-machine result.
#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

#include "test/util/dist_cluster.h"
#include "test/util/model_db.h"
#include "test/util/session_gen.h"
#include "test/util/tmpfs.h"

namespace distwriter {
namespace {

namespace fs = std::filesystem;
using testutil::DistCluster;
using testutil::ProcessResult;
using testutil::Session;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
constexpr uint64_t kDiskBytes = 256 << 20;

uint64_t DirBytes(const std::string& dir) {
  uint64_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) bytes += e.file_size();
  }
  return bytes;
}

// Names of temporary files (".tmp" in the name) below dir.
std::vector<std::string> TemporaryFiles(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp") != std::string::npos) found.push_back(e.path());
  }
  return found;
}

// Runs both writers on their call files; returns how each ended.
std::vector<ProcessResult> RunBoth(DistCluster& cluster, const std::vector<std::string>& files) {
  auto w0 = cluster.StartWriter(0, files[0]);
  auto w1 = cluster.StartWriter(1, files[1]);
  return {w0->Wait(), w1->Wait()};
}

TEST_CASE("a round whose writer's disk fills up fails cleanly and succeeds later", "[fault]") {
  testutil::GenOptions options;
  options.hostile_bytes = false;
  options.universe_urls = 8000;
  options.min_calls = 12000;
  options.max_calls = 12000;
  options.long_anchor_chance = 0.001;
  testutil::SessionGenerator gen(111, options);
  std::mt19937_64 cuts(111);
  const Session first = gen.Next(), second = gen.Next();
  const auto slices1 = testutil::SplitSession(first, 2, cuts);
  const auto slices2 = testutil::SplitSession(second, 2, cuts);

  DistCluster cluster(kDistwriter, 2, 20000);
  cluster.SetGlobal("retry_window_ms", "1000");  // a full disk stays full: fail soon
  testutil::Tmpfs disk(cluster.dir().File("m1"), kDiskBytes);
  cluster.Create();
  cluster.RunRound(slices1);
  const uint64_t before_round = DirBytes(disk.dir());
  const testutil::DbDump before = testutil::DumpDistDb(cluster.config());

  // How much the round adds on writer 1's machine, measured on a second cluster.
  DistCluster sized(kDistwriter, 2, 20000);
  sized.Create();
  sized.RunRound(slices1);
  const uint64_t sized_before = DirBytes(sized.dir().File("m1"));
  sized.RunRound(slices2);
  const uint64_t grown = DirBytes(sized.dir().File("m1")) - sized_before + before_round;
  REQUIRE(grown > before_round + (1 << 20));  // fails mid-round, not at its first write

  const std::string filler = disk.dir() + "/filler";
  disk.Fill(filler, kDiskBytes - disk.Used() - (grown - before_round) / 2);
  const std::vector<std::string> files = {cluster.WriteCallFile(0, slices2[0]),
                                          cluster.WriteCallFile(1, slices2[1])};
  std::vector<ProcessResult> full = RunBoth(cluster, files);
  std::string all = "writer 0: " + full[0].Describe() + "\nwriter 1: " + full[1].Describe();
  INFO(all);
  CHECK(full[0].exit_code == 4);
  CHECK(full[1].exit_code == 4);
  CHECK_THAT(all, Catch::Contains("No space left on device (ENOSPC)"));
  CHECK_THAT(all, Catch::Contains(disk.dir() + "/"));
  CHECK(testutil::CompareDumps(before, testutil::DumpDistDb(cluster.config())) == "");
  for (int i = 0; i < 2; ++i) {
    CHECK(cluster.Committed(i).version == 2);
    auto left = TemporaryFiles(cluster.dir().File("m" + std::to_string(i)));
    CHECK(left == std::vector<std::string>{});
  }

  fs::remove(filler);
  std::vector<ProcessResult> again = RunBoth(cluster, files);
  INFO("writer 0: " << again[0].Describe() << "\nwriter 1: " << again[1].Describe());
  REQUIRE(again[0].exit_code == 0);
  REQUIRE(again[1].exit_code == 0);
  testutil::CheckDistDbMatchesSingle(cluster.config(), {first, second});
}

}  // namespace
}  // namespace distwriter
