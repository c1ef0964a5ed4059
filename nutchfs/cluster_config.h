// ClusterConfig: the machines of a NutchFS installation, their roots, and which share
// groups each machine holds, loaded from one config file shared by every machine
// (`key = value` lines and `[section]` headers; every key is documented in
// config/README.md).
//
//   db = crawl                      # default db name
//   [machine.a]
//   location = /data/a              # or [user@]host[:port]:/root
//   [group.part0]
//   machines = a, b                 # first machine: the group's home (locks live there)
//
// Every error names FILE:LINE. NutchFS owns the top-level keys below and the
// [machine.*] and [group.*] sections (unknown keys there are errors); every other entry
// is left for later modules (the distributed writer's [writer.*]), which read it from
// `file` with its line and report their own errors through file.ErrorAt.
// A plain value, immutable after Load; safe to share between threads.
#ifndef NUTCHFS_CLUSTER_CONFIG_H_
#define NUTCHFS_CLUSTER_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/config_file.h"
#include "nutchfs/location.h"
#include "nutchfs/status.h"

namespace nutchfs {

struct MachineConfig {
  std::string name;
  Location location;
  int line = 0;  // of the "location" entry
};

struct GroupConfig {
  std::string name;
  std::vector<std::string> machines;  // names, in config order, no duplicates
  int line = 0;                       // of the "machines" entry
};

struct SshConfig {
  std::string identity_file;     // absolute; empty: libssh's defaults (~/.ssh)
  std::string known_hosts_file;  // absolute; empty: ~/.ssh/known_hosts
  bool accept_unknown_host_keys = false;
};

struct ClusterConfig {
  std::string db;
  std::vector<MachineConfig> machines;
  std::vector<GroupConfig> groups;
  int64_t timeout_ms = 600000;           // default wait for a peer's file
  int64_t connect_timeout_ms = 10000;    // ssh connection set-up
  int retries = 10;                      // extra attempts of an idempotent operation
  int64_t retry_window_ms = 30000;       // no new attempt after failing this long
  int64_t lock_lease_ms = 10000;         // a lease; and the age before a plain lock may be forced
  uint64_t memory_bytes = 256ull << 20;  // a writer's memory budget
  SshConfig ssh;
  ConfigFile file;  // every entry with its line, including other modules' keys

  // Reads and validates the config file at path.
  static Result<ClusterConfig> Load(const std::string& path);
  // Validates config text; path is used in messages and to resolve relative ssh paths.
  static Result<ClusterConfig> Parse(std::string_view text, const std::string& path);

  const MachineConfig* FindMachine(std::string_view name) const;
  const GroupConfig* FindGroup(std::string_view name) const;
  // The one machine whose ssh host is `hostname`, or nullptr if none or several.
  const MachineConfig* MachineOnHost(std::string_view hostname) const;
  // Entries outside NutchFS's keys and sections, in file order.
  std::vector<const ConfigEntry*> UnclaimedEntries() const;
};

}  // namespace nutchfs

#endif  // NUTCHFS_CLUSTER_CONFIG_H_
