#include "nutchfs/lock_file.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <sstream>

namespace nutchfs {

std::string LocalHostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

std::string LockInfo::Encode() const {
  return fmt::format("host {}\npid {}\nstart {}\nowner {}\n", host, pid, start, owner);
}

Result<LockInfo> LockInfo::Decode(std::string_view text, const std::string& path) {
  LockInfo info;
  std::istringstream in{std::string(text)};
  std::string key;
  int fields = 0;
  while (in >> key) {
    if (key == "host" && in >> info.host) ++fields;
    else if (key == "pid" && in >> info.pid) ++fields;
    else if (key == "start" && in >> info.start) ++fields;
    else if (key == "owner") std::getline(in >> std::ws, info.owner);
    else return Err(Status::Corruption(path + ": malformed lock file"));
  }
  if (fields != 3) return Err(Status::Corruption(path + ": incomplete lock file"));
  return info;
}

bool LockInfo::IsStale() const {
  if (host != LocalHostName() || pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

LockInfo CurrentProcessLock(std::string owner) {
  return LockInfo{LocalHostName(), ::getpid(), static_cast<int64_t>(std::time(nullptr)),
                  std::move(owner)};
}

Result<LockInfo> LockFile::Read(Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, path));
  return LockInfo::Decode(text, path);
}

Result<LockFile> LockFile::Acquire(Env& env, const std::string& path, std::string owner) {
  const std::string contents = CurrentProcessLock(std::move(owner)).Encode();
  // Two attempts: the second follows the removal of a stale lock.
  for (int attempt = 0; attempt < 2; ++attempt) {
    Status s = env.CreateExclusive(path, contents);
    if (s.ok()) return LockFile(&env, path);
    if (!s.IsBusy()) return Err(s);
    auto holder = Read(env, path);
    if (!holder) {
      if (holder.error().IsNotFound()) continue;  // released meanwhile
      return Err(Status::Busy(path + " is locked (unreadable lock file: " +
                              holder.error().message() + ")"));
    }
    if (!holder->IsStale()) {
      return Err(Status::Busy(fmt::format("{} is locked by {} on host {} (pid {}, since {})", path,
                                          holder->owner, holder->host, holder->pid,
                                          holder->start)));
    }
    Status removed = env.RemoveFile(path);
    if (!removed.ok() && !removed.IsNotFound()) return Err(removed);
  }
  return Err(Status::Busy(path + " is contended"));
}

LockFile::LockFile(LockFile&& other) noexcept
    : env_(std::exchange(other.env_, nullptr)), path_(std::move(other.path_)) {}

LockFile& LockFile::operator=(LockFile&& other) noexcept {
  if (this != &other) {
    if (env_ != nullptr) Release().ok();
    env_ = std::exchange(other.env_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

LockFile::~LockFile() {
  if (env_ != nullptr) {
    Status ignored = Release();
    (void)ignored;  // a destructor cannot report; callers wanting the error call Release()
  }
}

Status LockFile::Release() {
  if (env_ == nullptr) return Status::OK();
  Env* env = std::exchange(env_, nullptr);
  return env->RemoveFile(path_);
}

}  // namespace nutchfs
