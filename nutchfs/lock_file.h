// Exclusive lock files: the one locking mechanism of the project, valid on local
// disks, NFS and SFTP alike because it rests only on exclusive creation (O_EXCL /
// SFTP's exclusive open), never on flock/fcntl.
//
// A lock file holds "host <name>\npid <pid>\nstart <unix seconds>\nowner <text>\n".
// Stale-lock rule: a lock whose host is this host and whose pid is no longer alive is
// stale and is broken automatically by the next Acquire. A lock held by another host
// is never broken automatically (that host may be alive behind a partition); an
// operator breaks it with `nutchfs locks --break` after checking that host.
// LockFile is a move-only RAII handle; not thread-safe.
#ifndef NUTCHFS_LOCK_FILE_H_
#define NUTCHFS_LOCK_FILE_H_

#include <cstdint>
#include <string>

#include "nutchfs/env.h"

namespace nutchfs {

struct LockInfo {
  std::string host;
  int64_t pid = 0;
  int64_t start = 0;  // unix seconds
  std::string owner;

  std::string Encode() const;
  static Result<LockInfo> Decode(std::string_view text, const std::string& path);
  // Held by a process of this host that no longer exists.
  bool IsStale() const;
};

// This process, as a lock owner.
LockInfo CurrentProcessLock(std::string owner);
std::string LocalHostName();

class LockFile {
 public:
  // Creates path exclusively. Busy (naming the holder) if a live lock exists.
  static Result<LockFile> Acquire(Env& env, const std::string& path, std::string owner);
  // The holder recorded in path.
  static Result<LockInfo> Read(Env& env, const std::string& path);

  LockFile(LockFile&& other) noexcept;
  LockFile& operator=(LockFile&& other) noexcept;
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;
  ~LockFile();  // releases, ignoring errors (Release() reports them)

  Status Release();

 private:
  LockFile(Env* env, std::string path) : env_(env), path_(std::move(path)) {}

  Env* env_ = nullptr;
  std::string path_;
};

}  // namespace nutchfs

#endif  // NUTCHFS_LOCK_FILE_H_
