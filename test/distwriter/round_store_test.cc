// RoundStore: ROUND-<N> and CURRENT on the machines of the meta group — names, create,
// decide at one machine, find and publish at others, install, clean up, and what is
// wrong with a damaged CURRENT.
#include "distwriter/round_store.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "test/util/hosts_config.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"

namespace distwriter {
namespace {

DistConfig ThreeWriters(const testutil::TempDir& dir, int k = 3) {
  std::string text = "db = crawl\nwriters = " + std::to_string(k) + "\n";
  for (int i = 0; i < k; ++i) {
    const std::string m = "m" + std::to_string(i);
    text += "[machine." + m + "]\nlocation = " + dir.File(m) + "\n[writer." + std::to_string(i) +
            "]\nmachine = " + m + "\n";
  }
  auto config = DistConfig::Parse(text, dir.File("cluster.conf"));
  REQUIRE(config);
  return *config;
}

RoundManifest MakeRound(uint64_t version, int k = 3) {
  RoundManifest r;
  r.version = version;
  r.k = k;
  r.token = version > 1 ? "00112233445566" + std::to_string(version % 10) + "7" : "";
  r.digests.assign(k, "");
  r.sections.assign(k, webdb::Manifest{});
  for (int i = 0; i < k; ++i) {
    r.sections[i].version = version;
    for (int t = 0; t < webdb::kNumTables; ++t) {
      r.sections[i].tables[t] = {webdb::TableFile{
          "t" + std::to_string(t) + "-" + std::to_string(version) + ".tbl", uint64_t(t), 53, 7}};
    }
  }
  return r;
}

// A NutchFs as seen from machine m (empty: from outside the cluster) and its store.
struct At {
  At(const DistConfig& config, const std::string& machine, const testutil::TempDir& dir)
      : fs(std::move(*nutchfs::NutchFs::Open(config.cluster, machine))),
        store(*fs, config, dir.path()) {}
  std::unique_ptr<nutchfs::NutchFs> fs;
  RoundStore store;
};

std::string Meta(const testutil::TempDir& dir, int machine, const std::string& name) {
  return dir.File("m" + std::to_string(machine) + "/crawl/meta/" + name);
}

TEST_CASE("round file names") {
  CHECK(RoundFileName(7) == "ROUND-000007");
  CHECK(RoundFileName(12345678) == "ROUND-12345678");
  CHECK(ParseRoundFileName("ROUND-000007") == std::optional<uint64_t>(7));
  CHECK(ParseRoundFileName("ROUND-12345678") == std::optional<uint64_t>(12345678));
  for (const char* bad : {"ROUND-7", "ROUND-000000", "ROUND-000007.tmp.12.0", "ROUND-00000x",
                          "CURRENT", "ROUND-", "round-000007", "ROUND--00007"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseRoundFileName(bad).has_value());
  }
}

TEST_CASE("a round store creates, decides, finds, publishes, installs and cleans up") {
  testutil::TempDir dir;
  const DistConfig config = ThreeWriters(dir);
  At outside(config, "", dir), m0(config, "m0", dir), m1(config, "m1", dir), m2(config, "m2", dir);

  auto none = outside.store.InstalledVersion();
  REQUIRE_FALSE(none);
  CHECK(none.error().IsNotFound());
  CHECK_THAT(none.error().message(), Catch::Contains("run distwriter create first"));

  REQUIRE(outside.store.CheckNoDb().ok());
  REQUIRE(outside.store.CreateEverywhere(MakeRound(1)).ok());
  for (int m = 0; m < 3; ++m) {
    CHECK(testutil::ReadFileOrEmpty(Meta(dir, m, "CURRENT")) == "ROUND-000001\n");
    CHECK(std::filesystem::exists(Meta(dir, m, "ROUND-000001")));
  }
  CHECK_THAT(outside.store.CheckNoDb().message(), Catch::Contains("already exists"));
  CHECK(*m1.store.ReadInstalled() == MakeRound(1));

  // Writer 1 decides round 2 on its machine: the others find it there.
  REQUIRE(m1.store.Decide(MakeRound(2)).ok());
  CHECK(*m1.store.ReadDecided(2) == MakeRound(2));
  CHECK_FALSE(m0.store.ReadDecided(2)->has_value());
  CHECK(*m0.store.FindDecided(2) == MakeRound(2));
  CHECK_FALSE(m0.store.FindDecided(3)->has_value());
  CHECK(*outside.store.FindDecided(2) == MakeRound(2));

  REQUIRE(m1.store.PublishTo(MakeRound(2), "m2").ok());
  CHECK(*m2.store.ReadDecided(2) == MakeRound(2));
  CHECK_FALSE(m0.store.ReadDecided(2)->has_value());
  CHECK_FALSE(m1.store.PublishTo(MakeRound(2), "nowhere").ok());
  CHECK(m1.store.HasDecidedAt(2, "m2"));
  CHECK_FALSE(m1.store.HasDecidedAt(2, "m0"));
  CHECK_FALSE(m1.store.HasDecidedAt(3, "m2"));
  CHECK_FALSE(m1.store.HasDecidedAt(2, "nowhere"));

  REQUIRE(m1.store.Install(2).ok());
  CHECK(*m1.store.InstalledVersion() == 2);
  CHECK(*m0.store.InstalledVersion() == 1);
  CHECK(*outside.store.InstalledVersion() == 1);  // readers look at writer 0's machine

  REQUIRE(m1.store.RemoveRoundsExcept({2}, "m1").ok());
  REQUIRE(m0.store.InstallAt(2, "m2").ok());
  CHECK(*m2.store.InstalledVersion() == 2);
  CHECK(*m0.store.InstalledVersion() == 1);
  CHECK_FALSE(std::filesystem::exists(Meta(dir, 1, "ROUND-000001")));
  CHECK(std::filesystem::exists(Meta(dir, 1, "ROUND-000002")));
  CHECK(std::filesystem::exists(Meta(dir, 0, "ROUND-000001")));
  CHECK(std::filesystem::exists(Meta(dir, 2, "ROUND-000001")));
  // Scratch copies of FindDecided and PublishTo are gone.
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    CHECK(e.path().filename().string().find("round-store") == std::string::npos);
  }
}

TEST_CASE("a round store's clean-up removes the temporary round files of a stopped write") {
  testutil::TempDir dir;
  const DistConfig config = ThreeWriters(dir);
  At m1(config, "m1", dir);
  REQUIRE(m1.store.CreateEverywhere(MakeRound(1)).ok());
  REQUIRE(m1.store.Decide(MakeRound(2)).ok());
  REQUIRE(m1.store.Install(2).ok());
  // A writer stopped while deciding (WriteFileAtomically's name) or while a peer published
  // (nutchfs::PublishFile's hidden name); round 3's copy may still be on its way.
  const std::vector<std::string> stopped = {"ROUND-000002.tmp.4242.0",
                                            ".tmp.ROUND-000001.host.4242.00ff00ff00ff00ff"};
  const std::string pending = "ROUND-000003.tmp.4343.1";
  for (const std::string& name : stopped) std::ofstream(Meta(dir, 1, name)) << "partial";
  std::ofstream(Meta(dir, 1, pending)) << "partial";

  REQUIRE(m1.store.RemoveRoundsExcept({2}, "m1").ok());
  for (const std::string& name : stopped) {
    CAPTURE(name);
    CHECK_FALSE(std::filesystem::exists(Meta(dir, 1, name)));
  }
  CHECK(std::filesystem::exists(Meta(dir, 1, pending)));
  CHECK(std::filesystem::exists(Meta(dir, 1, "ROUND-000002")));
  CHECK(std::filesystem::exists(Meta(dir, 1, "CURRENT")));
}

TEST_CASE("a round store names what is wrong with CURRENT and the round it names") {
  testutil::TempDir dir;
  const DistConfig config = ThreeWriters(dir);
  At m0(config, "m0", dir);
  REQUIRE(m0.store.CreateEverywhere(MakeRound(1)).ok());

  testutil::WriteTextFile(Meta(dir, 0, "CURRENT"), "MANIFEST-000001\n");
  auto junk = m0.store.InstalledVersion();
  REQUIRE_FALSE(junk);
  CHECK(junk.error().IsCorruption());
  CHECK_THAT(junk.error().message(),
             Catch::Contains(Meta(dir, 0, "CURRENT") + ": names no round ('MANIFEST-000001"));

  testutil::WriteTextFile(Meta(dir, 0, "CURRENT"), "ROUND-000004\n");
  auto missing = m0.store.ReadInstalled();
  REQUIRE_FALSE(missing);
  CHECK(missing.error().IsCorruption());
  CHECK_THAT(missing.error().message(),
             Catch::Contains(Meta(dir, 0, "ROUND-000004") + ", which CURRENT names, is missing"));

  testutil::WriteTextFile(Meta(dir, 0, "ROUND-000004"), MakeRound(4, 2).Encode());
  auto other_k = m0.store.ReadInstalled();
  REQUIRE_FALSE(other_k);
  CHECK_THAT(other_k.error().message(), Catch::Contains("the db has 2 writers, the config 3"));

  testutil::WriteTextFile(Meta(dir, 0, "ROUND-000004"), MakeRound(5).Encode());
  auto renamed = m0.store.ReadInstalled();
  REQUIRE_FALSE(renamed);
  CHECK_THAT(renamed.error().message(), Catch::Contains("holds round 5, not 4"));
}

}  // namespace
}  // namespace distwriter
