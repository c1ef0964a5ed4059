// The versions a single-machine db keeps readable, and the operations on them:
// publishing a new version, collecting the files of versions it no longer keeps,
// listing them, and rolling back (docs/DESIGN.md, "Retained versions").
//
// A db keeps the `keep` newest versions (the current one included; `keep` is a db setting
// carried by every manifest, docs/FORMAT.md): version v is kept while
// current - keep < v <= current and MANIFEST-<v> exists. Their files are never deleted;
// nor are those of an older version while a live reader pins it (version_pin.h).
// Versions only grow: a rollback publishes a new version that names the tables of the
// version it restores, so a crash at any moment leaves CURRENT at the old or the new one.
// Stateless functions; thread-safe as the Env is. Publishing, collecting and rolling
// back must run under the db's LOCK.
#ifndef WEBDB_DB_VERSIONS_H_
#define WEBDB_DB_VERSIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/db/manifest.h"

namespace webdb {

// Called with the name of each step of a publication before it runs ("publish",
// "current", "collect"; a rollback first calls "rollback"), for crash tests.
using StepHook = std::function<void(std::string_view)>;

// Whether version v is kept by a db whose current version is current.
inline bool Kept(const Manifest& current, uint64_t v) {
  return v <= current.version && v + current.keep > current.version;
}

// The manifest of a kept version (the current one when version is nullopt); NotFound
// naming the kept versions when it is not kept.
Result<Manifest> ReadKeptManifest(nutchfs::Env& env, const std::string& dir,
                                  std::optional<uint64_t> version);

// The manifests of the kept versions of current that a version next_version with the
// keep setting next_keep no longer keeps (those whose manifest is missing hold nothing
// to lose and are left out); the error of one that cannot be read.
Result<std::vector<Manifest>> ManifestsDropped(nutchfs::Env& env, const std::string& dir,
                                               const Manifest& current, uint64_t next_version,
                                               uint32_t next_keep);

// Makes next the current version of dir, whose current version is current:
// checks every table next names (manifest_table.h), writes its manifest, switches
// CURRENT, then collects garbage. On an error before CURRENT is switched, the files next
// added are removed and the db stays at current. REQUIRES: the db's LOCK is held.
Status PublishVersion(nutchfs::Env& env, const std::string& dir, const Manifest& current,
                      const Manifest& next, const StepHook& hook);

// A version dir must keep (kept, or pinned by a live reader) whose manifest is there but
// cannot be read: damaged, or unreadable.
struct DamagedVersion {
  uint64_t version = 0;
  Status why;  // naming the manifest file
};

// What dir must keep: the manifests of current, of the other kept versions and of older
// versions pinned by live readers (with remove_stale_pins, stale pins are removed), and
// the versions among them whose manifest cannot be read (their files are not known).
struct LiveVersions {
  std::vector<Manifest> manifests;  // current first, then the kept ones newest first
  std::vector<DamagedVersion> damaged;
};
Result<LiveVersions> LiveManifests(nutchfs::Env& env, const std::string& dir,
                                   const Manifest& current, bool remove_stale_pins);

// Deletes the files of dir that neither a kept version of current nor a version pinned by
// a live reader names (also leftovers of interrupted updates, and stale pins). While a
// kept or pinned manifest cannot be read, its tables are not known: then only temporary
// files are deleted, and a warning names the damaged version and the command that drops
// it (DropVersion). REQUIRES: the db's LOCK is held.
Status CollectGarbage(nutchfs::Env& env, const std::string& dir, const Manifest& current);

struct VersionInfo {
  uint64_t version = 0;
  // Why its manifest cannot be read; empty when it can (and the rest is known).
  std::string damaged;
  int64_t time_ms = 0;
  uint64_t pages = 0, links = 0;
  uint64_t bytes = 0;     // of its four table files
  uint64_t restores = 0;  // a rollback to this version; 0 if none
  int readers = 0;        // live reader pins
  bool current = false;
};

struct VersionList {
  uint32_t keep = kDefaultKeep;
  std::vector<VersionInfo> versions;  // the kept versions, newest first
};

// The kept versions of dir; one whose manifest cannot be read is listed as damaged.
Result<VersionList> ListVersions(nutchfs::Env& env, const std::string& dir);

struct RollbackResult {
  uint64_t version = 0;  // the new current version (the old one when nothing was done)
  bool done = false;     // false: version's tables were current already
};

// Makes the tables of kept version `version` current again, as a new version. Busy when a
// writer holds LOCK; NotFound when version is not kept; an error naming the file when one
// of its tables is not the file its manifest names.
Result<RollbackResult> RollbackDb(nutchfs::Env& env, const std::string& dir, uint64_t version,
                                  const StepHook& hook);

// Drops kept version `version`, which is not the current one (`webdb drop-version`): removes
// its manifest, then every file no other kept or pinned version names. The way to drop a
// version whose manifest is damaged (its files are kept, unknown, until then). Busy when a
// writer holds LOCK or a live reader pins the version; NotFound when it is not kept;
// InvalidArgument for the current version. A kill at any moment leaves the version kept
// (its manifest not removed yet) or dropped (the next writer removes its files).
Status DropVersion(nutchfs::Env& env, const std::string& dir, uint64_t version);

}  // namespace webdb

#endif  // WEBDB_DB_VERSIONS_H_
