#include "webdb/db/versions.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

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

Result<std::vector<Manifest>> ManifestsDropped(nutchfs::Env& env, const std::string& dir,
                                               const Manifest& current, uint64_t next_version,
                                               uint32_t next_keep) {
  std::vector<Manifest> dropped;
  for (uint64_t v = current.version; v > 0 && Kept(current, v); --v) {
    if (v + next_keep > next_version) continue;  // kept by the next version too
    if (v == current.version) {
      dropped.push_back(current);
      continue;
    }
    auto m = ReadManifest(env, dir, v);
    if (!m && m.error().IsNotFound()) continue;
    if (!m) return Err(m.error());
    dropped.push_back(std::move(*m));
  }
  return dropped;
}

Result<LiveVersions> LiveManifests(nutchfs::Env& env, const std::string& dir,
                                   const Manifest& current, bool remove_stale_pins) {
  LiveVersions live;
  live.manifests.push_back(current);
  // A manifest that is missing was collected (before a reader pinned its version);
  // one that is there but cannot be read names files that are not known.
  auto take = [&](uint64_t v) -> Status {
    auto m = ReadManifest(env, dir, v);
    if (m) {
      live.manifests.push_back(std::move(*m));
    } else if (m.error().IsCorruption()) {
      live.damaged.push_back({v, m.error()});
    } else if (!m.error().IsNotFound()) {
      return m.error().WithContext("version " + std::to_string(v));
    }
    return Status::OK();
  };
  for (uint64_t v = current.version - 1; v > 0 && Kept(current, v); --v) {
    NUTCHFS_RETURN_IF_ERROR(take(v));
  }
  NUTCHFS_ASSIGN_OR_RETURN(auto pins, LivePins(env, dir, nutchfs::NowMs(), remove_stale_pins));
  for (const auto& [v, count] : pins) {
    if (Kept(current, v) || v > current.version) continue;
    NUTCHFS_RETURN_IF_ERROR(take(v));
  }
  return live;
}

Status CollectGarbage(nutchfs::Env& env, const std::string& dir, const Manifest& current) {
  NUTCHFS_ASSIGN_OR_RETURN(LiveVersions live,
                           LiveManifests(env, dir, current, /*remove_stale_pins=*/true));
  if (!live.damaged.empty()) {
    for (const DamagedVersion& d : live.damaged) {
      spdlog::warn("{}: version {} cannot be read ({}); no table file is deleted until it is "
                   "dropped (webdb drop-version {} {}) or no longer kept",
                   dir, d.version, d.why.message(), dir, d.version);
    }
    return RemoveTemporaryFiles(env, dir);
  }
  std::vector<const Manifest*> names;
  for (const Manifest& m : live.manifests) names.push_back(&m);
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
      if (!read && read.error().IsCorruption()) {
        VersionInfo damaged;
        damaged.version = v;
        damaged.damaged = read.error().message();
        list.versions.push_back(damaged);
        continue;
      }
      if (!read) return Err(read.error());
      m = std::move(*read);
    }
    VersionInfo info{v, "", m.time_ms, m.num_pages(), m.num_links(), 0, m.restores, 0,
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
  if (target.SameTables(current)) return RollbackResult{current.version, false};
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

Status DropVersion(nutchfs::Env& env, const std::string& dir, uint64_t version) {
  if (!env.FileExists(dir + "/CURRENT")) return Status::NotFound("no webdb at " + dir);
  NUTCHFS_ASSIGN_OR_RETURN(auto lock,
                           nutchfs::ScopedLock::Acquire(env, dir + "/LOCK", "webdb drop-version"));
  NUTCHFS_ASSIGN_OR_RETURN(Manifest current, ReadCurrentManifest(env, dir));
  if (version == current.version) {
    return Status::InvalidArgument(fmt::format(
        "version {} is the current version of {}: roll back to another one first", version, dir));
  }
  const std::string manifest = dir + "/" + ManifestFileName(version);
  if (!Kept(current, version) || !env.FileExists(manifest)) {
    return Status::NotFound(fmt::format("version {} of {} is not kept (keep {}: {})", version,
                                        dir, current.keep, KeptRange(current)));
  }
  NUTCHFS_ASSIGN_OR_RETURN(auto pins, LivePins(env, dir, nutchfs::NowMs(), /*remove_stale=*/true));
  if (auto it = pins.find(version); it != pins.end()) {
    return Status::Busy(fmt::format("version {} of {} is read by {} live reader(s)", version, dir,
                                    it->second));
  }
  NUTCHFS_RETURN_IF_ERROR(env.RemoveFile(manifest));
  NUTCHFS_RETURN_IF_ERROR(env.SyncDir(dir));
  NUTCHFS_RETURN_IF_ERROR(CollectGarbage(env, dir, current));
  NUTCHFS_RETURN_IF_ERROR(env.SyncDir(dir));
  return lock->Release();
}

}  // namespace webdb
