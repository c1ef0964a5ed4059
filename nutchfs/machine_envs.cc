#include "nutchfs/machine_envs.h"

#include <algorithm>
#include <cstdint>

#include "nutchfs/sftp_env.h"

namespace nutchfs {
namespace {

SftpOptions OptionsFor(const ClusterConfig& config, const Location& loc) {
  SftpOptions o;
  o.user = loc.user;
  o.host = loc.host;
  o.port = loc.port;
  o.identity_file = config.ssh.identity_file;
  o.known_hosts_file = config.ssh.known_hosts_file;
  o.accept_unknown_host_key = config.ssh.accept_unknown_host_keys;
  o.connect_timeout_ms = static_cast<int>(config.connect_timeout_ms);
  o.max_retries = config.retries;
  o.retry_window_ms = static_cast<int>(std::min<int64_t>(config.retry_window_ms, INT32_MAX));
  return o;
}

}  // namespace

MachineEnvs::MachineEnvs(const ClusterConfig& config, std::string own_machine, Env* override_env)
    : config_(config), own_machine_(std::move(own_machine)), local_(override_env) {
  if (local_ == nullptr) {
    // Roots this Env reaches: local locations, and this machine's own root.
    std::vector<std::string> roots;
    for (const MachineConfig& m : config_.machines) {
      if (m.location.scheme == Location::Scheme::kLocal || m.name == own_machine_) {
        roots.push_back(m.location.root);
      }
    }
    owned_local_ = NewLocalEnv(std::move(roots));
    local_ = owned_local_.get();
  }
  fenced_local_ = NewFencedEnv(local_, &fence_);
}

Result<Env*> MachineEnvs::EnvFor(const MachineConfig& m) {
  NUTCHFS_ASSIGN_OR_RETURN(Env * raw, RawEnvFor(m));
  if (raw == local_) return fenced_local_.get();
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<Env>& env = fenced_remote_[m.name];
  if (env == nullptr) env = NewFencedEnv(raw, &fence_);
  return env.get();
}

Result<Env*> MachineEnvs::RawEnvFor(const MachineConfig& m) {
  if (owned_local_ == nullptr || m.name == own_machine_) return local_;
  switch (m.location.scheme) {
    case Location::Scheme::kLocal:
      return local_;
    case Location::Scheme::kSsh:
      break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<Env>& env = remote_[m.name];
  if (env == nullptr) {
    auto made = NewSftpEnv(OptionsFor(config_, m.location));
    if (!made) {
      return Err(
          made.error().WithContext("machine " + m.name + " (" + m.location.ToString() + ")"));
    }
    env = std::move(*made);
  }
  return env.get();
}

}  // namespace nutchfs
