// The example configs in config/ are valid distributed-writer configs: each loads with
// DistConfig::Load with three writers on the machines it documents, and the two whose
// machines are local paths (local-3.conf, nfs-3.conf), with their roots moved into a
// temporary directory, run `distwriter create` and a `distwriter launch` round whose
// result equals the single-machine writer's.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>

#include "distwriter/dist_config.h"
#include "test/util/call_writer.h"
#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"

namespace distwriter {
namespace {

const std::string kConfigDir = PROJECT_SOURCE_DIR "/config/";
const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";

DistConfig LoadExample(const std::string& name) {
  auto config = DistConfig::Load(kConfigDir + name);
  INFO(name << ": " << (config ? "" : config.error().ToString()));
  REQUIRE(config.has_value());
  return *config;
}

std::vector<std::string> GroupMachines(const DistConfig& c, const std::string& group) {
  const nutchfs::GroupConfig* g = c.cluster.FindGroup(group);
  INFO("group " << group);
  REQUIRE(g != nullptr);
  return g->machines;
}

// k = 3, writer i on machines[i], the synthesized groups, and every location's scheme.
void CheckExample(const std::string& name, const std::vector<std::string>& machines,
                  nutchfs::Location::Scheme scheme) {
  CAPTURE(name);
  const DistConfig c = LoadExample(name);
  CHECK(c.db() == "crawl");
  REQUIRE(c.k == 3);
  CHECK(c.writer_machines == machines);
  for (int i = 0; i < c.k; ++i) {
    CHECK(GroupMachines(c, WriterGroup(i)) == std::vector<std::string>{machines[i]});
    const nutchfs::MachineConfig* m = c.cluster.FindMachine(machines[i]);
    REQUIRE(m != nullptr);
    CHECK(m->location.scheme == scheme);
  }
  CHECK(GroupMachines(c, kMetaGroup) == machines);
  CHECK(GroupMachines(c, "exports") == machines);
}

TEST_CASE("the example configs load as three-writer configs") {
  using Scheme = nutchfs::Location::Scheme;
  CheckExample("local-3.conf", {"m0", "m1", "m2"}, Scheme::kLocal);
  CheckExample("nfs-3.conf", {"node1", "node2", "node3"}, Scheme::kLocal);
  CheckExample("ssh-3.conf", {"node1", "node2", "node3"}, Scheme::kSsh);
  const DistConfig ssh = LoadExample("ssh-3.conf");
  CHECK(ssh.cluster.FindMachine("node3")->location.port == 2222);
  CHECK(ssh.cluster.ssh.identity_file == "/home/nutch/.ssh/id_ed25519");
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  INFO("writing " << path);
  REQUIRE(out.good());
}

// The example with every root under `from` moved under dir, and a short timeout so a
// broken round fails the test instead of hanging it.
std::string LocalVariant(const std::string& name, const std::string& from,
                         const testutil::TempDir& dir) {
  std::string text = testutil::ReadFileOrEmpty(kConfigDir + name);
  REQUIRE(text.find(from) != std::string::npos);
  text = std::regex_replace(text, std::regex(from), dir.File("roots"));
  text = std::regex_replace(text, std::regex("timeout_ms = [0-9]+"), "timeout_ms = 30000");
  const std::string path = dir.File(name);
  WriteText(path, text);
  return path;
}

void RunExample(const std::string& name, const std::string& root_prefix) {
  CAPTURE(name);
  testutil::TempDir dir;
  const std::string config = LocalVariant(name, root_prefix, dir);
  auto create = testutil::RunProcess({kDistwriter, "create", "--config", config}, {},
                                     dir.File("create"));
  INFO("distwriter create: " << create.Describe());
  REQUIRE(create.exit_code == 0);

  testutil::GenOptions o;
  o.hostile_bytes = false;
  testutil::SessionGenerator gen(77, o);
  testutil::Session session;
  while (session.size() < 20) session = gen.Next();
  testutil::WriteCallFile(dir.File("calls.jsonl"), session);
  auto launch = testutil::RunProcess(
      {kDistwriter, "launch", "--config", config, "--quiet", dir.File("calls.jsonl")}, {},
      dir.File("launch"));
  INFO("distwriter launch: " << launch.Describe());
  REQUIRE(launch.exit_code == 0);

  testutil::CheckDistDbMatchesSingle(config, {session});
}

TEST_CASE("local-3.conf and nfs-3.conf, with local roots, run a launch round") {
  RunExample("local-3.conf", "/var/tmp/nutchfs/local-3");
  RunExample("nfs-3.conf", "/mnt/nutch");
}

}  // namespace
}  // namespace distwriter

TEST_CASE("declared writer groups must match what the writer derives") {
  const std::string base =
      "db = d\nwriters = 2\n[machine.a]\nlocation = /ra\n[machine.b]\nlocation = /rb\n"
      "[writer.0]\nmachine = a\n[writer.1]\nmachine = b\n";
  auto ok = distwriter::DistConfig::Parse(
      base + "[group.w1]\nmachines = b\n[group.meta]\nmachines = a, b\n", "x.conf");
  REQUIRE(ok);
  CHECK(ok->cluster.FindGroup("w1")->machines == std::vector<std::string>{"b"});
  auto bad = distwriter::DistConfig::Parse(base + "[group.w0]\nmachines = b\n", "x.conf");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message(), Catch::Contains("x.conf:12: group w0"));
}
