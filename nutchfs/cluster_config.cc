#include "nutchfs/cluster_config.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "nutchfs/nutchfile.h"
#include "nutchfs/strings.h"

namespace nutchfs {
namespace {

constexpr std::string_view kMachinePrefix = "machine.";
constexpr std::string_view kGroupPrefix = "group.";
constexpr std::array<std::string_view, 10> kTopKeys = {
    "db",           "timeout_ms",      "connect_timeout_ms",
    "retries",      "retry_window_ms", "lock_lease_ms",
    "memory",       "ssh_identity",    "ssh_known_hosts",
    "ssh_accept_unknown_host_keys"};

bool IsTopKey(const ConfigEntry &e) {
  return e.section.empty() && std::find(kTopKeys.begin(), kTopKeys.end(), e.key) != kTopKeys.end();
}

bool IsOwnSection(std::string_view section) {
  return section.starts_with(kMachinePrefix) || section.starts_with(kGroupPrefix);
}

bool IsClaimed(const ConfigEntry &e) { return IsTopKey(e) || IsOwnSection(e.section); }

// Duplicate [machine.*]/[group.*] headers and duplicate NutchFS keys.
Status CheckDuplicates(const ConfigFile &file) {
  std::map<std::string, int> first;
  for (const ConfigSection &s : file.sections()) {
    if (!IsOwnSection(s.name)) continue;
    auto [it, added] = first.emplace(s.name, s.line);
    if (!added) {
      return file.ErrorAt(s.line, "duplicate section [" + s.name + "] (first at line " +
                                      std::to_string(it->second) + ")");
    }
  }
  first.clear();
  for (const ConfigEntry &e : file.entries()) {
    if (!IsClaimed(e)) continue;
    auto [it, added] = first.emplace(e.key, e.line);
    if (!added) {
      return file.ErrorAt(e.line, "duplicate key '" + e.key + "' (first at line " +
                                      std::to_string(it->second) + ")");
    }
  }
  return Status::OK();
}

Result<int64_t> ParseInt(const ConfigFile &file, const ConfigEntry &e, int64_t min, int64_t max) {
  const std::string &v = e.value;
  bool digits = !v.empty() && v.size() <= 18 &&
                std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(c & 0xff); });
  int64_t n = digits ? std::stoll(v) : -1;
  if (!digits || n < min || n > max) {
    return Err(file.ErrorAt(e.line, "'" + e.key + "' must be an integer in " + std::to_string(min) +
                                        ".." + std::to_string(max) + ", found '" + v + "'"));
  }
  return n;
}

Result<bool> ParseBool(const ConfigFile &file, const ConfigEntry &e) {
  const std::string &v = e.value;
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  return Err(file.ErrorAt(e.line, "'" + e.key + "' must be true or false, found '" + v + "'"));
}

// "256M", "1G", "1048576": bytes with an optional binary K/M/G/T suffix.
Result<uint64_t> ParseBytes(const ConfigFile &file, const ConfigEntry &e) {
  std::string v = e.value;
  int shift = 0;
  if (!v.empty()) {
    size_t at = std::string_view("KMGT").find(std::toupper(v.back() & 0xff));
    if (at != std::string_view::npos) {
      shift = 10 * static_cast<int>(at + 1);
      v.pop_back();
    }
  }
  ConfigEntry digits = e;
  digits.value = v;
  auto n = ParseInt(file, digits, 1, std::numeric_limits<int64_t>::max() >> 40);
  if (!n) {
    return Err(file.ErrorAt(e.line,
                            "'memory' must be a byte count such as 268435456, "
                            "256M or 1G, found '" +
                                e.value + "'"));
  }
  return static_cast<uint64_t>(*n) << shift;
}

// A path relative to the config file's directory becomes absolute.
std::string ResolvePath(const std::string &config_path, const std::string &path) {
  if (path.empty() || path.front() == '/') return path;
  std::filesystem::path base = std::filesystem::absolute(config_path).parent_path();
  return (base / path).lexically_normal().string();
}

Status ParseTopKey(const ConfigFile &file, const ConfigEntry &e, ClusterConfig *c) {
  constexpr int64_t kMaxMs = int64_t{1} << 40;
  if (e.key == "db") {
    Status s = ValidateComponent("db name", e.value);
    if (!s.ok()) return file.ErrorAt(e.line, s.message());
    c->db = e.value;
  } else if (e.key == "timeout_ms") {
    NUTCHFS_ASSIGN_OR_RETURN(c->timeout_ms, ParseInt(file, e, 1, kMaxMs));
  } else if (e.key == "connect_timeout_ms") {
    NUTCHFS_ASSIGN_OR_RETURN(c->connect_timeout_ms, ParseInt(file, e, 1, kMaxMs));
  } else if (e.key == "retries") {
    NUTCHFS_ASSIGN_OR_RETURN(c->retries, ParseInt(file, e, 0, 100));
  } else if (e.key == "retry_window_ms") {
    NUTCHFS_ASSIGN_OR_RETURN(c->retry_window_ms, ParseInt(file, e, 0, kMaxMs));
  } else if (e.key == "lock_lease_ms") {
    NUTCHFS_ASSIGN_OR_RETURN(c->lock_lease_ms, ParseInt(file, e, 100, kMaxMs));
  } else if (e.key == "memory") {
    NUTCHFS_ASSIGN_OR_RETURN(c->memory_bytes, ParseBytes(file, e));
  } else if (e.key == "ssh_identity") {
    c->ssh.identity_file = ResolvePath(file.path(), e.value);
  } else if (e.key == "ssh_known_hosts") {
    c->ssh.known_hosts_file = ResolvePath(file.path(), e.value);
  } else {
    NUTCHFS_ASSIGN_OR_RETURN(c->ssh.accept_unknown_host_keys, ParseBool(file, e));
  }
  return Status::OK();
}

// The entries of each section, by section name, gathered in one pass: looking them up
// section by section went through every entry once per section, quadratic in the
// config's size.
using SectionEntries = std::unordered_map<std::string_view, std::vector<const ConfigEntry *>>;

SectionEntries EntriesBySection(const ConfigFile &file) {
  SectionEntries by_section;
  for (const ConfigEntry &e : file.entries()) by_section[e.section].push_back(&e);
  return by_section;
}

// The entries of one [machine.*] or [group.*] section: only `key` is allowed,
// and required.
Result<const ConfigEntry *> SectionKey(const ConfigFile &file, const SectionEntries &entries,
                                       const ConfigSection &section, std::string_view key) {
  static const std::vector<const ConfigEntry *> kNone;
  const ConfigEntry *found = nullptr;
  auto it = entries.find(section.name);
  for (const ConfigEntry *e : it == entries.end() ? kNone : it->second) {
    if (e->key != section.name + "." + std::string(key)) {
      return Err(file.ErrorAt(e->line, "unknown key '" + e->key.substr(section.name.size() + 1) +
                                           "' in [" + section.name + "]"));
    }
    found = e;
  }
  if (found == nullptr) {
    return Err(
        file.ErrorAt(section.line, "[" + section.name + "] has no '" + std::string(key) + "'"));
  }
  return found;
}

// Machine names and locations seen so far, each with the machine that has it.
struct MachineIndex {
  std::unordered_map<std::string, std::string> by_location;
  std::unordered_set<std::string> names;
};

Status ParseMachine(const ConfigFile &file, const SectionEntries &entries,
                    const ConfigSection &section, MachineIndex *index, ClusterConfig *c) {
  MachineConfig m;
  m.name = section.name.substr(kMachinePrefix.size());
  Status s = ValidateComponent("machine name", m.name);
  if (!s.ok()) return file.ErrorAt(section.line, s.message());
  NUTCHFS_ASSIGN_OR_RETURN(const ConfigEntry *e, SectionKey(file, entries, section, "location"));
  m.line = e->line;
  auto loc = Location::Parse(e->value);
  if (!loc) return file.ErrorAt(e->line, loc.error().message());
  m.location = std::move(*loc);
  auto [other, added] = index->by_location.emplace(m.location.ToString(), m.name);
  if (!added) {
    return file.ErrorAt(e->line, "machines '" + other->second + "' and '" + m.name +
                                     "' have the same location " + m.location.ToString());
  }
  index->names.insert(m.name);
  c->machines.push_back(std::move(m));
  return Status::OK();
}

Status ParseGroup(const ConfigFile &file, const SectionEntries &entries,
                  const ConfigSection &section, const MachineIndex &index, ClusterConfig *c) {
  GroupConfig g;
  g.name = section.name.substr(kGroupPrefix.size());
  Status s = ValidateComponent("share group name", g.name);
  if (!s.ok()) return file.ErrorAt(section.line, s.message());
  NUTCHFS_ASSIGN_OR_RETURN(const ConfigEntry *e, SectionKey(file, entries, section, "machines"));
  g.line = e->line;
  std::unordered_set<std::string> listed;
  std::string_view list = e->value;
  while (!Trim(list).empty()) {
    size_t comma = list.find(',');
    std::string name(Trim(list.substr(0, comma)));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    std::string where = "share group '" + g.name + "' ";
    if (name.empty()) return file.ErrorAt(e->line, where + "has an empty machine name");
    if (!index.names.contains(name)) {
      return file.ErrorAt(e->line, where + "names unknown machine '" + name + "'");
    }
    if (!listed.insert(name).second) {
      return file.ErrorAt(e->line, where + "lists machine '" + name + "' twice");
    }
    g.machines.push_back(std::move(name));
  }
  if (g.machines.empty())
    return file.ErrorAt(e->line, "share group '" + g.name + "' has no machine");
  c->groups.push_back(std::move(g));
  return Status::OK();
}

Status ParseSections(const ConfigFile &file, ClusterConfig *c) {
  const SectionEntries entries = EntriesBySection(file);
  MachineIndex index;
  for (const ConfigSection &s : file.sections()) {
    if (s.name.starts_with(kMachinePrefix)) {
      NUTCHFS_RETURN_IF_ERROR(ParseMachine(file, entries, s, &index, c));
    }
  }
  for (const ConfigSection &s : file.sections()) {
    if (s.name.starts_with(kGroupPrefix)) {
      NUTCHFS_RETURN_IF_ERROR(ParseGroup(file, entries, s, index, c));
    }
  }
  if (c->machines.empty()) return file.ErrorAt(0, "no [machine.NAME] section");
  return Status::OK();
}

Result<ClusterConfig> Build(ConfigFile file) {
  ClusterConfig c;
  c.file = std::move(file);
  NUTCHFS_RETURN_IF_ERROR(CheckDuplicates(c.file));
  for (const ConfigEntry &e : c.file.entries()) {
    if (IsTopKey(e)) NUTCHFS_RETURN_IF_ERROR(ParseTopKey(c.file, e, &c));
  }
  if (c.db.empty()) return Err(c.file.ErrorAt(0, "missing key 'db'"));
  NUTCHFS_RETURN_IF_ERROR(ParseSections(c.file, &c));
  return c;
}

}  // namespace

Result<ClusterConfig> ClusterConfig::Load(const std::string &path) {
  NUTCHFS_ASSIGN_OR_RETURN(ConfigFile file, ConfigFile::Read(path));
  return Build(std::move(file));
}

Result<ClusterConfig> ClusterConfig::Parse(std::string_view text, const std::string &path) {
  NUTCHFS_ASSIGN_OR_RETURN(ConfigFile file, ConfigFile::Parse(text, path));
  return Build(std::move(file));
}

const MachineConfig *ClusterConfig::FindMachine(std::string_view name) const {
  for (const MachineConfig &m : machines) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const GroupConfig *ClusterConfig::FindGroup(std::string_view name) const {
  for (const GroupConfig &g : groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

const MachineConfig *ClusterConfig::MachineOnHost(std::string_view hostname) const {
  const MachineConfig *found = nullptr;
  for (const MachineConfig &m : machines) {
    if (m.location.scheme != Location::Scheme::kSsh || m.location.host != hostname) continue;
    if (found != nullptr) return nullptr;
    found = &m;
  }
  return found;
}

std::vector<const ConfigEntry *> ClusterConfig::UnclaimedEntries() const {
  std::vector<const ConfigEntry *> out;
  for (const ConfigEntry &e : file.entries()) {
    if (!IsClaimed(e)) out.push_back(&e);
  }
  return out;
}

}  // namespace nutchfs
