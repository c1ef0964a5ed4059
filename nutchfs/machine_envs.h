// MachineEnvs: the Env that reaches each machine's NutchFS root, chosen by the scheme of
// the machine's location, created on first use and kept for the object's life (one SSH
// session per remote machine for a whole job).
//
//  - this machine (own_machine): the local file system at its root path, whatever its
//    location says (a machine reaches its own root directly);
//  - a local location: the local file system (another disk, an NFS mount, or another
//    "machine" of a one-host simulation);
//  - an ssh location: an SFTP Env with the config's keys and timeouts.
// An override Env, if given, replaces all three (tests). Every Env it hands out is
// fenced (fenced_env.h) by fence(), which passes everything until it is set; RawEnvFor
// gives the same Envs unfenced, for a lease's own renewals. Owns every Env it creates.
// Thread-safe.
#ifndef NUTCHFS_MACHINE_ENVS_H_
#define NUTCHFS_MACHINE_ENVS_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "nutchfs/cluster_config.h"
#include "nutchfs/env.h"
#include "nutchfs/fenced_env.h"

namespace nutchfs {

class MachineEnvs {
 public:
  // REQUIRES: config outlives this; override_env, if not null, too.
  MachineEnvs(const ClusterConfig& config, std::string own_machine, Env* override_env);
  MachineEnvs(const MachineEnvs&) = delete;
  MachineEnvs& operator=(const MachineEnvs&) = delete;

  // The Env for machine m; connects on first use for ssh locations (an error names the
  // machine and is not remembered: the next call tries again).
  Result<Env*> EnvFor(const MachineConfig& m);
  Result<Env*> RawEnvFor(const MachineConfig& m);
  // The Env of this process's own files (working files of Put and Get).
  Env& local() { return *fenced_local_; }
  Fence& fence() { return fence_; }

 private:
  const ClusterConfig& config_;
  const std::string own_machine_;
  Fence fence_;
  Env* local_;
  std::unique_ptr<Env> owned_local_;
  std::unique_ptr<Env> fenced_local_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Env>> remote_;         // by machine name
  std::map<std::string, std::unique_ptr<Env>> fenced_remote_;  // the same, fenced
};

}  // namespace nutchfs

#endif  // NUTCHFS_MACHINE_ENVS_H_
