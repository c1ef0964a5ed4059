#include "tools/scratch_dir.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace tools {

nutchfs::Result<std::unique_ptr<ScratchDir>> ScratchDir::Create(nutchfs::Env& env,
                                                                std::string_view purpose) {
  static std::atomic<uint64_t> made{0};
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                           "/webdb-" + std::string(purpose) + "-" + std::to_string(::getpid()) +
                           "-" + std::to_string(made++);
  // A pid is reused only once its process is gone: a directory of this name is a dead
  // process's leftover.
  NUTCHFS_RETURN_IF_ERROR(env.RemoveDirRecursively(path));
  NUTCHFS_RETURN_IF_ERROR(env.CreateDirs(path).WithContext("create a scratch directory"));
  return std::unique_ptr<ScratchDir>(new ScratchDir(env, path));
}

ScratchDir::~ScratchDir() {
  nutchfs::Status removed = env_.RemoveDirRecursively(path_);
  (void)removed;  // scratch only: a leftover is removed by the next process of its pid
}

}  // namespace tools
