#include "test/util/slurm_cluster.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>


namespace testutil {

SlurmCluster::SlurmCluster(std::string script) : script_(std::move(script)) {
  if (script_.empty()) FAIL("SlurmCluster: PROJECT_SOURCE_DIR is not defined for this binary");
  char tmpl[] = "/tmp/slurmtest.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) FAIL("SlurmCluster: mkdtemp failed");
  const std::string dir = tmpl;
  // The script's own output goes beside the cluster's directory, which `up` wants empty
  // and `down` removes.
  const ProcessResult up = RunProcess({script_, "up", dir}, {}, dir + ".up");
  if (up.exit_code != 0) {
    const ProcessResult down = RunProcess({script_, "down", dir}, {}, dir + ".down");
    FAIL("scripts/slurmtest.sh up " << dir << " failed: " << up.Describe() << "\n"
                                    << up.out << "\ndown: " << down.Describe());
  }
  dir_ = dir;
}

SlurmCluster::~SlurmCluster() {
  const ProcessResult down = RunProcess({script_, "down", dir_}, {}, dir_ + ".down");
  if (down.exit_code != 0) {
    std::fprintf(stderr, "scripts/slurmtest.sh down %s failed: %s\n", dir_.c_str(),
                 down.Describe().c_str());
  }
  for (const char* what : {".up", ".down"}) {
    for (const char* stream : {".out", ".err"}) ::unlink((dir_ + what + stream).c_str());
  }
}

ProcessResult SlurmCluster::Shell(const std::string& command, const std::string& name) const {
  return Subprocess::Start({"/bin/sh", "-c", command}, {ConfEnv()}, dir_ + "/" + name)
      ->Wait(std::chrono::minutes(2));
}

}  // namespace testutil
