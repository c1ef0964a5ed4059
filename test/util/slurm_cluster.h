// SlurmCluster: a real one-node Slurm for one test — munged, slurmctld and slurmd started
// as root by scripts/slurmtest.sh in a fresh directory under /tmp, and stopped again (every
// job cancelled, the daemons killed by their pids, the directory removed) by the
// destructor, whatever happened. docs/TEST-HOSTS.md, "Slurm".
//
// A set-up failure (not root, a package missing, a daemon that does not start) FAILs the
// running Catch2 test with the script's output and the daemons' logs: it is never
// skipped. Owns the daemons; not copyable; one thread.
#ifndef TEST_UTIL_SLURM_CLUSTER_H_
#define TEST_UTIL_SLURM_CLUSTER_H_

#include <string>
#include <vector>

#include "test/util/subprocess.h"

#ifdef PROJECT_SOURCE_DIR
#define TESTUTIL_SLURMTEST_SCRIPT PROJECT_SOURCE_DIR "/scripts/slurmtest.sh"
#else
#define TESTUTIL_SLURMTEST_SCRIPT ""
#endif

namespace testutil {

class SlurmCluster {
 public:
  explicit SlurmCluster(std::string script = TESTUTIL_SLURMTEST_SCRIPT);
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  const std::string& dir() const { return dir_; }
  // "SLURM_CONF=<dir>/slurm.conf", for Subprocess::Start's environment.
  std::string ConfEnv() const { return "SLURM_CONF=" + dir_ + "/slurm.conf"; }
  // Runs a /bin/sh command line against this cluster (srun, sbatch, scontrol ...), its
  // output kept in files named `name` under dir(); waits at most two minutes.
  ProcessResult Shell(const std::string& command, const std::string& name) const;

 private:
  const std::string script_;
  std::string dir_;
};

}  // namespace testutil

#endif  // TEST_UTIL_SLURM_CLUSTER_H_
