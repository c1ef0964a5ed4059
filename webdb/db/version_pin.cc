#include "webdb/db/version_pin.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <random>

#include "nutchfs/lock_file.h"

namespace webdb {
namespace {

// The version of a pin file's name "<version>-<pid>-<16 hex digits>"; 0 for other names
// (the temporary names of lock files being created or removed).
uint64_t PinnedVersion(const std::string& name) {
  uint64_t version = 0;
  long long pid = 0;
  char token[17] = {};
  int used = 0;
  if (std::sscanf(name.c_str(), "%" SCNu64 "-%lld-%16[0-9a-f]%n", &version, &pid, token, &used) !=
          3 ||
      static_cast<size_t>(used) != name.size() || std::string_view(token).size() != 16) {
    return 0;
  }
  return version;
}

}  // namespace

Result<std::unique_ptr<VersionPin>> VersionPin::Create(nutchfs::Env& env, const std::string& dir,
                                                       uint64_t version) {
  std::random_device rd;
  const uint64_t token = (uint64_t{rd()} << 32) | rd();
  const std::string path =
      fmt::format("{}/{}/{:06d}-{}-{:016x}", dir, kReadersDir, version, ::getpid(), token);
  NUTCHFS_ASSIGN_OR_RETURN(auto lock, nutchfs::ScopedLock::Acquire(env, path, "webdb reader"));
  return std::unique_ptr<VersionPin>(new VersionPin(version, std::move(lock)));
}

Result<std::map<uint64_t, int>> LivePins(nutchfs::Env& env, const std::string& dir, int64_t now_ms,
                                         bool remove_stale) {
  std::map<uint64_t, int> pins;
  const std::string readers = dir + "/" + kReadersDir;
  auto names = env.GetChildren(readers);
  if (!names && names.error().IsNotFound()) return pins;
  if (!names) return Err(names.error());
  const nutchfs::LockOwner me = nutchfs::CurrentProcess("webdb collector");
  for (const std::string& name : *names) {
    const uint64_t version = PinnedVersion(name);
    if (version == 0) continue;
    const std::string path = readers + "/" + name;
    auto owner = nutchfs::ReadLockFile(env, path);
    if (!owner && owner.error().IsNotFound()) continue;  // released meanwhile
    if (!nutchfs::JudgeLock(owner, me, now_ms, kPinLeaseMs, /*force=*/true).breakable) {
      ++pins[version];
    } else if (remove_stale) {
      auto removed = nutchfs::BreakLockFile(env, path, me, now_ms, kPinLeaseMs, /*force=*/true);
      if (!removed && !removed.error().IsNotFound() && !removed.error().IsBusy()) {
        return Err(removed.error());
      }
    }
  }
  return pins;
}

}  // namespace webdb
