// Streaming whole-file copies between Envs, and the SHA-256 digest that lets a receiver
// verify a file it got (size + digest travel with the file's announcement, e.g. in a
// round's manifest). Stateless functions; safe to call from several threads.
#ifndef NUTCHFS_FILE_COPY_H_
#define NUTCHFS_FILE_COPY_H_

#include <cstdint>
#include <string>

#include "nutchfs/env.h"

namespace nutchfs {

struct FileInfo {
  uint64_t size = 0;
  std::string sha256;  // 64 lowercase hex digits

  friend bool operator==(const FileInfo&, const FileInfo&) = default;
};

// Copies src_path (read through src) to dst_path (created or truncated through dst),
// then syncs and closes it. Returns the size and digest of the bytes read.
Result<FileInfo> CopyFile(Env& src, const std::string& src_path, Env& dst,
                          const std::string& dst_path);

// The size and digest of path.
Result<FileInfo> DigestFile(Env& env, const std::string& path);

}  // namespace nutchfs

#endif  // NUTCHFS_FILE_COPY_H_
