// ScratchDir: a fresh directory of this process's own under $TMPDIR (or /tmp), made and
// removed (with everything in it) through an Env: the crawl commands' spooled calls and
// fetch lists, verify's sorts. One thread; not copyable.
#ifndef TOOLS_SCRATCH_DIR_H_
#define TOOLS_SCRATCH_DIR_H_

#include <memory>
#include <string>
#include <string_view>

#include "nutchfs/env.h"

namespace tools {

class ScratchDir {
 public:
  // "<tmp>/webdb-<purpose>-<pid>-<n>", a name no other live process uses (a dead one's
  // leftover of the same name is removed first). REQUIRES: env reaches local paths.
  static nutchfs::Result<std::unique_ptr<ScratchDir>> Create(nutchfs::Env& env,
                                                             std::string_view purpose);
  ~ScratchDir();  // removes it, best effort: scratch only
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  ScratchDir(nutchfs::Env& env, std::string path) : env_(env), path_(std::move(path)) {}
  nutchfs::Env& env_;
  std::string path_;
};

}  // namespace tools

#endif  // TOOLS_SCRATCH_DIR_H_
