// Small rounds of the distributed writer write runs and read what they change
// (docs/DISTRIBUTED.md, "Sections"): each writer plans its section's stages from the edits
// the k arrivals' footers count, so that after a load, rounds of a few calls write runs in
// the sections, as the single machine does; writers forced to seek (RunOptions::seeks)
// write the very section files of writers forced to walk, and so do writers that plan
// seeks, for k = 1..4; and every db holds the single machine's rows. The k writers are
// threads of this process over in-memory Envs.
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "nutchfs/mem_env.h"
#include "test/util/model_db.h"
#include "test/util/session_gen.h"
#include "test/util/thread_cluster.h"

namespace distwriter {
namespace {

using testutil::ModelDb;
using testutil::Session;
using testutil::SessionGenerator;
using testutil::ThreadCluster;

// Every table file (base or run) of every writer's section: path, contents.
std::map<std::string, std::string> SectionFiles(nutchfs::Env& env, const ThreadCluster& cluster) {
  std::map<std::string, std::string> files;
  for (int i = 0; i < cluster.k(); ++i) {
    const std::string dir = ThreadCluster::Root(i) + "/webdb/w" + std::to_string(i) + "/section";
    auto names = env.GetChildren(dir);
    INFO(dir << ": " << (names ? "" : names.error().ToString()));
    REQUIRE(names);
    for (const std::string& name : *names) {
      if (!name.ends_with(".tbl")) continue;
      auto bytes = nutchfs::ReadFileToString(env, dir + "/" + name);
      INFO(name << ": " << (bytes ? "" : bytes.error().ToString()));
      REQUIRE(bytes);
      files[dir + "/" + name] = std::move(*bytes);
    }
  }
  return files;
}

size_t RunFiles(const std::map<std::string, std::string>& files) {
  size_t runs = 0;
  for (const auto& [path, bytes] : files) runs += path.ends_with("-run.tbl") ? 1 : 0;
  return runs;
}

// A distributed db of k writers on an Env of its own, its stages planned or forced.
struct Cluster {
  Cluster(int k, webdb::LayerPolicy layers, webdb::SeekPolicy seeks)
      : cluster(k, 60000), env(nutchfs::NewMemEnv()), layers(layers), seeks(seeks) {
    ThreadCluster::Prepare(*env);
    REQUIRE(cluster.Create(*env).ok());
  }

  void Run(const std::string& round, const std::vector<Session>& slices) {
    auto ran = cluster.Run(*env, ThreadCluster::WriteCalls(*env, round, slices), 256 << 10,
                           layers, seeks);
    for (auto& r : ran) {
      INFO((r ? "" : r.error().ToString()));
      REQUIRE(r.has_value());
    }
  }

  testutil::DbDump Dump() {
    auto dump = cluster.Dump(*env);
    INFO((dump ? "" : dump.error().ToString()));
    REQUIRE(dump);
    return *dump;
  }

  ThreadCluster cluster;
  std::unique_ptr<nutchfs::Env> env;
  const webdb::LayerPolicy layers;
  const webdb::SeekPolicy seeks;
};

testutil::GenOptions Pages() {
  testutil::GenOptions gen;
  gen.universe_urls = 1500;
  gen.universe_md5s = 300;
  gen.min_calls = 5000;
  gen.max_calls = 5000;
  gen.churn = 0.01;
  gen.long_url_chance = 0;
  gen.long_anchor_chance = 0;
  gen.hostile_bytes = false;  // the call files are JSON: bytes as UTF-8 keeps them
  return gen;
}

TEST_CASE("distributed rounds forced to seek write the section files rounds that walk write",
          "[layered][seeks]") {
  const int k = GENERATE(1, 2, 3, 4);
  CAPTURE(k);
  SessionGenerator gen(700 + static_cast<uint64_t>(k), Pages());
  std::mt19937_64 rng(710 + static_cast<uint64_t>(k));
  Cluster planned(k, webdb::LayerPolicy::kPlan, webdb::SeekPolicy::kPlan);
  Cluster seeking(k, webdb::LayerPolicy::kPlan, webdb::SeekPolicy::kSeek);
  Cluster walking(k, webdb::LayerPolicy::kPlan, webdb::SeekPolicy::kWalk);
  ModelDb single;
  size_t most_runs = 0;
  // A load, then rounds of a few calls, of shrinking size so that runs pile up.
  for (int i = 0; i < 8; ++i) {
    CAPTURE(i);
    Session s = gen.Next();
    if (i > 0) s.resize(std::min<size_t>(s.size(), 120 >> (i % 4)));
    const std::vector<Session> slices = testutil::SplitSession(s, k, rng);
    const std::string round = "r" + std::to_string(i);
    planned.Run(round, slices);
    seeking.Run(round, slices);
    walking.Run(round, slices);
    REQUIRE(single.Apply(s).ok());
    auto expected = single.Dump();
    REQUIRE(expected);
    REQUIRE(testutil::CompareDumps(*expected, planned.Dump()) == "");
    REQUIRE(testutil::CompareDumps(*expected, seeking.Dump()) == "");
    const auto sought = SectionFiles(*seeking.env, seeking.cluster);
    CHECK(sought == SectionFiles(*walking.env, walking.cluster));
    // Planned from the same counts as the forced ones, seeking where they are sparse.
    const auto files = SectionFiles(*planned.env, planned.cluster);
    CHECK(files == sought);
    most_runs = std::max(most_runs, RunFiles(files));
  }
  // The small rounds wrote runs (a writer that cannot count its section's edits merges
  // every stage into the base, and seeks nowhere).
  CHECK(most_runs >= static_cast<size_t>(k));
}

}  // namespace
}  // namespace distwriter
