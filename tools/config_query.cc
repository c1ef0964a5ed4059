#include "tools/config_query.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <map>
#include <string>

namespace tools {
namespace {

using distwriter::DistConfig;
using nutchfs::Status;

const std::map<std::string_view, std::function<std::string(const DistConfig&)>>& Keys() {
  static const auto* keys =
      new std::map<std::string_view, std::function<std::string(const DistConfig&)>>{
          {"db", [](const DistConfig& c) { return c.db(); }},
          {"writers", [](const DistConfig& c) { return std::to_string(c.k); }},
          {"replicas", [](const DistConfig& c) { return std::to_string(c.replicas); }},
          {"distwriter", [](const DistConfig& c) { return c.distwriter_binary; }},
          {"timeout_ms", [](const DistConfig& c) { return std::to_string(c.cluster.timeout_ms); }},
          {"connect_timeout_ms",
           [](const DistConfig& c) { return std::to_string(c.cluster.connect_timeout_ms); }},
          {"retries", [](const DistConfig& c) { return std::to_string(c.cluster.retries); }},
          {"retry_window_ms",
           [](const DistConfig& c) { return std::to_string(c.cluster.retry_window_ms); }},
          {"lock_lease_ms",
           [](const DistConfig& c) { return std::to_string(c.cluster.lock_lease_ms); }},
          {"memory", [](const DistConfig& c) { return std::to_string(c.cluster.memory_bytes); }},
          {"ssh_identity", [](const DistConfig& c) { return c.cluster.ssh.identity_file; }},
          {"ssh_known_hosts", [](const DistConfig& c) { return c.cluster.ssh.known_hosts_file; }},
          {"ssh_accept_unknown_host_keys",
           [](const DistConfig& c) {
             return std::string(c.cluster.ssh.accept_unknown_host_keys ? "true" : "false");
           }},
      };
  return *keys;
}

Status Written(std::FILE* out) {
  return std::ferror(out) ? Status::IOError("writing standard output failed") : Status::OK();
}

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

}  // namespace

Status PrintWriterMachines(const DistConfig& config, std::FILE* out) {
  for (int i = 0; i < config.k; ++i) {
    const std::string& name = config.writer_machines[i];
    const nutchfs::Location& loc = config.cluster.FindMachine(name)->location;
    const bool ssh = loc.scheme == nutchfs::Location::Scheme::kSsh;
    std::fputs(fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", i, name, ssh ? "ssh" : "local",
                           ssh ? loc.host : "-", ssh ? std::to_string(loc.port) : "-",
                           ssh ? OrDash(loc.user) : "-", loc.root)
                   .c_str(),
               out);
  }
  return Written(out);
}

std::vector<std::string> ReportedConfigKeys() {
  std::vector<std::string> keys;
  for (const auto& [name, value] : Keys()) keys.emplace_back(name);
  return keys;
}

Status CheckConfigKey(std::string_view key) {
  if (Keys().contains(key)) return Status::OK();
  return Status::InvalidArgument(fmt::format("--get {}: not a key distwriter reports (one of {})",
                                             key, fmt::join(ReportedConfigKeys(), ", ")));
}

Status PrintConfigValue(const DistConfig& config, std::string_view key, std::FILE* out) {
  std::fputs((Keys().at(key)(config) + "\n").c_str(), out);
  return Written(out);
}

}  // namespace tools
