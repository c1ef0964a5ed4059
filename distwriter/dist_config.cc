#include "distwriter/dist_config.h"

#include <algorithm>
#include <charconv>

namespace distwriter {
namespace {

Result<int> ParseInt(const nutchfs::ConfigFile& file, const nutchfs::ConfigEntry& e, int min,
                     int max) {
  int v = 0;
  auto [end, ec] = std::from_chars(e.value.data(), e.value.data() + e.value.size(), v);
  if (ec != std::errc() || end != e.value.data() + e.value.size() || v < min || v > max) {
    return Err(file.ErrorAt(e.line, "'" + e.key + "' must be an integer in " +
                                        std::to_string(min) + ".." + std::to_string(max)));
  }
  return v;
}

// Reads "writers" and every [writer.I] section into d.
Status ReadWriters(DistConfig& d) {
  const nutchfs::ConfigFile& file = d.cluster.file;
  const nutchfs::ConfigEntry* writers = file.Find("writers");
  if (writers == nullptr) return file.ErrorAt(0, "missing 'writers = K'");
  NUTCHFS_ASSIGN_OR_RETURN(d.k, ParseInt(file, *writers, 1, kMaxWriters));
  if (const nutchfs::ConfigEntry* replicas = file.Find("replicas")) {
    NUTCHFS_ASSIGN_OR_RETURN(d.replicas, ParseInt(file, *replicas, 1, d.k));
  }
  if (const nutchfs::ConfigEntry* binary = file.Find("distwriter")) {
    // A relative path would mean one directory to a local writer and another (the
    // login directory) to an ssh one.
    if (binary->value.empty() ||
        (binary->value.front() != '/' && binary->value.find('/') != std::string::npos)) {
      return file.ErrorAt(binary->line, "distwriter = '" + binary->value +
                                            "': an absolute path or a command name (found "
                                            "through PATH on each writer's machine)");
    }
    d.distwriter_binary = binary->value;
  }
  d.writer_machines.assign(d.k, "");
  for (const nutchfs::ConfigEntry* e : d.cluster.UnclaimedEntries()) {
    if (e->key == "writers" || e->key == "replicas" || e->key == "distwriter") continue;
    if (!e->section.starts_with("writer.") || e->key != e->section + ".machine") {
      return file.ErrorAt(e->line, "unknown key '" + e->key + "'");
    }
    nutchfs::ConfigEntry index = *e;
    index.value = e->section.substr(7);
    auto parsed = ParseInt(file, index, 0, d.k - 1);
    if (!parsed) {
      return file.ErrorAt(e->line, "[" + e->section + "]: the writer index must be an integer in 0.." +
                                       std::to_string(d.k - 1) + " (writers = " +
                                       std::to_string(d.k) + ")");
    }
    const int i = *parsed;
    if (!d.writer_machines[i].empty()) {
      return file.ErrorAt(e->line, "writer " + std::to_string(i) + " is given twice");
    }
    if (d.cluster.FindMachine(e->value) == nullptr) {
      return file.ErrorAt(e->line, "unknown machine '" + e->value + "'");
    }
    d.writer_machines[i] = e->value;
  }
  for (int i = 0; i < d.k; ++i) {
    if (d.writer_machines[i].empty()) {
      return file.ErrorAt(writers->line, "no [writer." + std::to_string(i) + "] machine");
    }
  }
  return Status::OK();
}

// Adds the groups w<i> and meta. A config may declare them itself (so that the nutchfs
// tool, which does not know about writers, sees them), but only as the writer derives them.
Status AddGroup(DistConfig& d, nutchfs::GroupConfig group) {
  if (const nutchfs::GroupConfig* g = d.cluster.FindGroup(group.name)) {
    if (g->machines == group.machines) return Status::OK();
    std::string want;
    for (const std::string& m : group.machines) want += (want.empty() ? "" : ", ") + m;
    return d.cluster.file.ErrorAt(g->line, "group " + g->name +
                                               " is the distributed writer's: its machines must be " +
                                               want);
  }
  d.cluster.groups.push_back(std::move(group));
  return Status::OK();
}

// The machines of writers i, i+1, ..., i+R-1 (mod k): each copy of a section must be on a
// machine of its own.
Result<std::vector<std::string>> SectionMachines(const DistConfig& d, int i) {
  std::vector<std::string> machines;
  for (int r = 0; r < d.replicas; ++r) {
    const int w = (i + r) % d.k;
    const std::string& m = d.writer_machines[w];
    if (std::find(machines.begin(), machines.end(), m) != machines.end()) {
      const nutchfs::ConfigEntry* replicas = d.cluster.file.Find("replicas");
      return Err(d.cluster.file.ErrorAt(
          replicas->line,
          "replicas = " + std::to_string(d.replicas) + ": writers " + std::to_string(i) + " and " +
              std::to_string(w) + " both run on machine " + m +
              ", and each copy of a section must be on a machine of its own"));
    }
    machines.push_back(m);
  }
  return machines;
}

Status AddGroups(DistConfig& d) {
  nutchfs::GroupConfig meta{kMetaGroup, {}, 0};
  for (int i = 0; i < d.k; ++i) {
    NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> machines, SectionMachines(d, i));
    NUTCHFS_RETURN_IF_ERROR(AddGroup(d, {WriterGroup(i), std::move(machines), 0}));
    if (std::find(meta.machines.begin(), meta.machines.end(), d.writer_machines[i]) ==
        meta.machines.end()) {
      meta.machines.push_back(d.writer_machines[i]);
    }
  }
  return AddGroup(d, std::move(meta));
}

}  // namespace

std::string WriterGroup(int writer) { return "w" + std::to_string(writer); }

Result<DistConfig> DistConfig::Load(const std::string& path) {
  DistConfig d;
  NUTCHFS_ASSIGN_OR_RETURN(d.cluster, nutchfs::ClusterConfig::Load(path));
  NUTCHFS_RETURN_IF_ERROR(ReadWriters(d));
  NUTCHFS_RETURN_IF_ERROR(AddGroups(d));
  return d;
}

Result<DistConfig> DistConfig::Parse(std::string_view text, const std::string& path) {
  DistConfig d;
  NUTCHFS_ASSIGN_OR_RETURN(d.cluster, nutchfs::ClusterConfig::Parse(text, path));
  NUTCHFS_RETURN_IF_ERROR(ReadWriters(d));
  NUTCHFS_RETURN_IF_ERROR(AddGroups(d));
  return d;
}

nutchfs::NutchFile DistConfig::WriterFile(int writer, std::string name) const {
  return nutchfs::NutchFile{cluster.db, WriterGroup(writer), std::move(name)};
}

nutchfs::NutchFile DistConfig::MetaFile(std::string name) const {
  return nutchfs::NutchFile{cluster.db, kMetaGroup, std::move(name)};
}

const std::vector<std::string>& DistConfig::GroupMachines(int writer) const {
  return cluster.FindGroup(WriterGroup(writer))->machines;
}

std::string DistConfig::Describe(int writer) const {
  return "writer " + std::to_string(writer) + " (machine " + writer_machines[writer] + ")";
}

}  // namespace distwriter
