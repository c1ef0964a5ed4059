#include "webdb/db/versions.h"

#include <fmt/format.h>

#include "nutchfs/clock.h"
#include "nutchfs/scoped_lock.h"
#include "webdb/db/manifest_table.h"
#include "webdb/db/version_pin.h"

namespace webdb {
namespace {

std::string KeptRange(const Manifest& current) {
  const uint64_t oldest = current.version >= current.keep ? current.version - current.keep + 1 : 1;
  return oldest == current.version ? fmt::format("version {}", oldest)
                                   : fmt::format("versions {}..{}", oldest, current.version);
}

void Step(const StepHook& hook, std::string_view step) {
  if (hook) hook(step);
}

}  // namespace


Result<Manifest> ReadKeptManifest(nutchfs::Env& env, const std::string& dir,
                                  std::optional<uint64_t> version) {
  NUTCHFS_ASSIGN_OR_RETURN(Manifest current, ReadCurrentManifest(env, dir));
  if (!version || *version == current.version) return current;
  auto not_kept = [&] {
    return Err(Status::NotFound(fmt::format("version {} of {} is not kept (keep {}: {})", *version,
                                            dir, current.keep, KeptRange(current))));
  };
  if (!Kept(current, *version)) return not_kept();
  auto m = ReadManifest(env, dir, *version);
  if (!m && m.error().IsNotFound()) return not_kept();
  return m;
}

Result<std::vector<Manifest>> LiveManifests(nutchfs::Env& env, const std::string& dir,
                                            const Manifest& current, bool remove_stale_pins) {
  std::vector<Manifest> live = {current};
  for (uint64_t v = current.version - 1; v > 0 && Kept(current, v); --v) {
    auto m = ReadManifest(env, dir, v);
    if (!m && m.error().IsNotFound()) continue;
    if (!m) return Err(m.error().WithContext("kept version " + std::to_string(v)));
    live.push_back(std::move(*m));
  }
  NUTCHFS_ASSIGN_OR_RETURN(auto pins, LivePins(env, dir, nutchfs::NowMs(), remove_stale_pins));
  for (const auto& [v, count] : pins) {
    if (Kept(current, v) || v > current.version) continue;
    auto m = ReadManifest(env, dir, v);
    if (!m && m.error().IsNotFound()) continue;  // collected before the reader pinned it
    if (!m) {
      return Err(m.error().WithContext("version " + std::to_string(v) + " pinned by a reader"));
    }
    live.push_back(std::move(*m));
  }
  return live;
}

Status CollectGarbage(nutchfs::Env& env, const std::string& dir, const Manifest& current) {
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<Manifest> live,
                           LiveManifests(env, dir, current, /*remove_stale_pins=*/true));
  std::vector<const Manifest*> names;
  for (const Manifest& m : live) names.push_back(&m);
  return RemoveObsoleteFiles(env, dir, names);
}

Status PublishVersion(nutchfs::Env& env, const std::string& dir, const Manifest& current,
                      const Manifest& next, const StepHook& hook) {
  Status s = CheckManifestTables(env, dir, next);
  if (s.ok()) {
    Step(hook, "publish");
    s = WriteManifest(env, dir, next);
  }
  if (!s.ok()) {
    Status ignored = CollectGarbage(env, dir, current);
    (void)ignored;  // only this publication's files; the next writer removes them anyway
    return s.WithContext(fmt::format("{}: version {} not published", dir, next.version));
  }
  Step(hook, "current");
  NUTCHFS_RETURN_IF_ERROR(SetCurrent(env, dir, next.version));
  Step(hook, "collect");
  return CollectGarbage(env, dir, next);
}

Result<VersionList> ListVersions(nutchfs::Env& env, const std::string& dir) {
  NUTCHFS_ASSIGN_OR_RETURN(Manifest current, ReadCurrentManifest(env, dir));
  NUTCHFS_ASSIGN_OR_RETURN(auto pins, LivePins(env, dir, nutchfs::NowMs(), /*remove_stale=*/false));
  VersionList list;
  list.keep = current.keep;
  for (uint64_t v = current.version; v > 0 && Kept(current, v); --v) {
    Manifest m;
    if (v == current.version) {
      m = current;
    } else {
      auto read = ReadManifest(env, dir, v);
      if (!read && read.error().IsNotFound()) continue;
      if (!read) return Err(read.error());
      m = std::move(*read);
    }
    VersionInfo info{v, m.time_ms, m.num_pages(), m.num_links(), 0, m.restores, 0,
                     v == current.version};
    for (int t = 0; t < kNumTables; ++t) info.bytes += m.bytes(static_cast<TableId>(t));
    if (auto it = pins.find(v); it != pins.end()) info.readers = it->second;
    list.versions.push_back(info);
  }
  return list;
}

Result<RollbackResult> RollbackDb(nutchfs::Env& env, const std::string& dir, uint64_t version,
                                  const StepHook& hook) {
  if (!env.FileExists(dir + "/CURRENT")) return Err(Status::NotFound("no webdb at " + dir));
  NUTCHFS_ASSIGN_OR_RETURN(auto lock,
                           nutchfs::ScopedLock::Acquire(env, dir + "/LOCK", "webdb rollback"));
  Step(hook, "rollback");
  NUTCHFS_ASSIGN_OR_RETURN(Manifest current, ReadCurrentManifest(env, dir));
  NUTCHFS_RETURN_IF_ERROR(CollectGarbage(env, dir, current));  // leftovers of a crash
  // A rollback that already happened (a rerun after a crash) does nothing.
  if (current.restores == version) return RollbackResult{current.version, false};
  NUTCHFS_ASSIGN_OR_RETURN(Manifest target, ReadKeptManifest(env, dir, version));
  if (target.tables == current.tables) return RollbackResult{current.version, false};
  Manifest next = target;
  next.version = current.version + 1;
  next.time_ms = nutchfs::NowMs();
  next.keep = current.keep;
  next.restores = version;
  // Opening a table reads its footer only: a damaged block would be published unseen.
  Status sound = CheckCarriedTables(env, dir, target, next, ManifestFileName(version));
  if (!sound.ok()) {
    return Err(sound.WithContext(fmt::format("{}: rollback to version {} refused", dir, version)));
  }
  NUTCHFS_RETURN_IF_ERROR(PublishVersion(env, dir, current, next, hook));
  NUTCHFS_RETURN_IF_ERROR(lock->Release());
  return RollbackResult{next.version, true};
}

}  // namespace webdb
