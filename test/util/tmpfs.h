// Tmpfs: a size-limited tmpfs mounted for one test, a real small file system to fill up
// (ENOSPC from the kernel, not from a fault-injecting Env). Needs root, which the tests
// have: a mount that fails fails the running Catch2 test, it never skips it.
// Unmounted (lazily) on destruction. Not copyable; one thread.
#ifndef TEST_UTIL_TMPFS_H_
#define TEST_UTIL_TMPFS_H_

#include <cstdint>
#include <string>

namespace testutil {

class Tmpfs {
 public:
  // Mounts a tmpfs of `bytes` at dir (made if missing).
  Tmpfs(std::string dir, uint64_t bytes);
  ~Tmpfs();
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;

  const std::string& dir() const { return dir_; }
  // Bytes in use (statvfs).
  uint64_t Used() const;
  // Writes a file of `bytes` at path (inside the tmpfs), to leave less room.
  void Fill(const std::string& path, uint64_t bytes) const;

 private:
  const std::string dir_;
};

}  // namespace testutil

#endif  // TEST_UTIL_TMPFS_H_
