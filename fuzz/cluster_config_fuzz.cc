// Fuzzes the cluster config (nutchfs/config_file.h, nutchfs/cluster_config.h) and the
// distributed writer's view of it (distwriter/dist_config.h).
// Properties: no crash and no escaping exception; every
// error is InvalidArgument naming the file; entries and sections carry lines inside the
// text; a config that loads names machines and groups that exist.
#include <algorithm>
#include <cstdint>
#include <string>

#include "distwriter/dist_config.h"
#include "fuzz/fuzz_util.h"
#include "nutchfs/cluster_config.h"
#include "nutchfs/config_file.h"

namespace {

constexpr char kPath[] = "/etc/webdb/cluster.conf";

void CheckError(const nutchfs::Status& s) {
  FUZZ_CHECK_MSG(s.IsInvalidArgument(), s.ToString());
  FUZZ_CHECK_MSG(s.message().starts_with(kPath), s.ToString());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzzutil::AsView(data, size);
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;

  auto file = nutchfs::ConfigFile::Parse(text, kPath);
  if (file) {
    for (const auto& e : file->entries()) FUZZ_CHECK(e.line >= 1 && e.line <= lines);
    for (const auto& s : file->sections()) FUZZ_CHECK(s.line >= 1 && s.line <= lines);
  } else {
    CheckError(file.error());
  }

  auto cluster = nutchfs::ClusterConfig::Parse(text, kPath);
  if (!cluster) {
    CheckError(cluster.error());
  } else {
    FUZZ_CHECK(file.has_value());
    for (const auto& g : cluster->groups) {
      FUZZ_CHECK(!g.machines.empty());
      for (const auto& m : g.machines) FUZZ_CHECK(cluster->FindMachine(m) != nullptr);
    }
    for (const auto* e : cluster->UnclaimedEntries()) FUZZ_CHECK(e->line >= 1 && e->line <= lines);
  }

  auto dist = distwriter::DistConfig::Parse(text, kPath);
  if (!dist) {
    CheckError(dist.error());
  } else {
    FUZZ_CHECK(cluster.has_value());
    FUZZ_CHECK(dist->k >= 1 && dist->k <= distwriter::kMaxWriters);
    FUZZ_CHECK(static_cast<int>(dist->writer_machines.size()) == dist->k);
    for (int i = 0; i < dist->k; ++i) {
      FUZZ_CHECK(dist->cluster.FindMachine(dist->writer_machines[i]) != nullptr);
      FUZZ_CHECK(dist->cluster.FindGroup(distwriter::WriterGroup(i)) != nullptr);
      (void)dist->Describe(i);
    }
  }
  return 0;
}
