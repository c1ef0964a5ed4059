#include "nutchfs/publish.h"

#include <unistd.h>

#include <cstdio>
#include <random>

namespace nutchfs {
namespace {

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "host";
  return std::string(buf).substr(0, 64);
}

// A random 64-bit value; each thread has its own generator.
uint64_t Nonce() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  return rng();
}

// Copies src_path to tmp and returns the size and digest of what tmp holds. Within one
// Env the backend copies (without the bytes passing through here) and tmp is then read
// back to digest it; between Envs the bytes are digested on their way.
Result<FileInfo> CopyToTemp(Env& src, const std::string& src_path, Env& dst,
                            const std::string& tmp) {
  if (&src != &dst) {
    NUTCHFS_ASSIGN_OR_RETURN(FileInfo info, CopyFile(src, src_path, dst, tmp));
    NUTCHFS_ASSIGN_OR_RETURN(uint64_t size, dst.GetFileSize(tmp));
    if (size == info.size) return info;
    return Err(Status::IOError("incomplete transfer to " + tmp + ": wrote " +
                               std::to_string(info.size) + " bytes, found " +
                               std::to_string(size)));
  }
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t size, src.GetFileSize(src_path));
  NUTCHFS_RETURN_IF_ERROR(dst.CopyWithin(src_path, tmp));
  NUTCHFS_ASSIGN_OR_RETURN(FileInfo info, DigestFile(dst, tmp));
  if (info.size == size) return info;
  return Err(Status::IOError("incomplete copy to " + tmp + ": " + src_path + " has " +
                             std::to_string(size) + " bytes, the copy " +
                             std::to_string(info.size)));
}

// The temporary file is written, checked and renamed; the caller removes it on failure.
Result<FileInfo> WriteAndRename(Env& src, const std::string& src_path, Env& dst,
                                const std::string& tmp, const std::string& dest_path,
                                bool verify_checksum) {
  NUTCHFS_ASSIGN_OR_RETURN(FileInfo info, CopyToTemp(src, src_path, dst, tmp));
  if (verify_checksum) {
    // Compare with the side CopyToTemp did not digest.
    NUTCHFS_ASSIGN_OR_RETURN(FileInfo other,
                             &src == &dst ? DigestFile(src, src_path) : DigestFile(dst, tmp));
    if (other != info) {
      return Err(Status::IOError("checksum mismatch between " + src_path + " and " + tmp));
    }
  }
  NUTCHFS_RETURN_IF_ERROR(dst.RenameFile(tmp, dest_path));
  // A rename that reported success but left the temporary file in place must not pass
  // for one. (The final name itself may already hold a concurrent put's file.)
  if (dst.FileExists(tmp)) {
    return Err(Status::IOError("rename of " + tmp + " to " + dest_path + " did not take effect"));
  }
  return info;
}

// Makes a rename into dir durable. The file is published once renamed: its receiver may
// already have taken it and removed the directory (the exchange of a round's last
// stage), and then nothing is left to sync.
Status SyncPublished(Env& env, const std::string& dir) {
  Status synced = env.SyncDir(dir);
  return synced.IsNotFound() ? Status::OK() : synced;
}

}  // namespace

bool IsHiddenName(std::string_view component) {
  return !component.empty() && component.front() == '.';
}

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string TempPathFor(const std::string& dest_path) {
  size_t slash = dest_path.rfind('/');
  std::string base = slash == std::string::npos ? dest_path : dest_path.substr(slash + 1);
  char nonce[20];
  std::snprintf(nonce, sizeof(nonce), "%016llx", static_cast<unsigned long long>(Nonce()));
  std::string name = ".tmp." + base.substr(0, 100) + "." + HostName() + "." +
                     std::to_string(::getpid()) + "." + nonce;
  return slash == std::string::npos ? name : dest_path.substr(0, slash + 1) + name;
}

Result<FileInfo> PublishFile(Env& src, const std::string& src_path, Env& dst,
                             const std::string& dest_path, bool verify_checksum) {
  const std::string dir = DirOf(dest_path);
  NUTCHFS_RETURN_IF_ERROR(CreateDirsDurably(dst, dir));
  const std::string tmp = TempPathFor(dest_path);
  auto info = WriteAndRename(src, src_path, dst, tmp, dest_path, verify_checksum);
  if (!info) {
    if (dst.FileExists(tmp)) {
      Status ignored = dst.RemoveFile(tmp);  // best effort: a leftover is invisible anyway
      (void)ignored;
    }
    return info;
  }
  NUTCHFS_RETURN_IF_ERROR(SyncPublished(dst, dir));
  return info;
}

Status PublishByRename(Env& env, const std::string& src_path, const std::string& dest_path) {
  const std::string dir = DirOf(dest_path);
  NUTCHFS_RETURN_IF_ERROR(CreateDirsDurably(env, dir));
  NUTCHFS_RETURN_IF_ERROR(env.RenameFile(src_path, dest_path));
  return SyncPublished(env, dir);
}

}  // namespace nutchfs
