// The rounds a distributed db keeps readable, and the operations on them: which rounds a
// writer's clean-up keeps, reading a kept round, listing them, rolling back and changing
// the keep setting (docs/DISTRIBUTED.md, "Retained rounds"). The distributed counterpart
// of webdb/db/versions.h.
//
// A db keeps the `keep` newest rounds (the installed one included; `keep` is carried by
// every round manifest): round v is kept while installed - keep < v <= installed and
// ROUND-<v> is there. Writer i deletes a file of its section only when neither a kept
// round nor a round pinned by a live reader (a pin in its section directory,
// webdb/db/version_pin.h) names it. Rounds only grow: a rollback or a keep change is a new
// round, published and installed on every machine of the meta group while every
// writer's LOCK is held, so no round runs meanwhile.
//
// Stateless functions; not thread-safe (a NutchFs is not).
#ifndef DISTWRITER_ROUND_VERSIONS_H_
#define DISTWRITER_ROUND_VERSIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/round_manifest.h"
#include "distwriter/round_store.h"
#include "nutchfs/env.h"
#include "nutchfs/nutchfs.h"
#include "webdb/db/versions.h"

namespace distwriter {

// Whether round v is kept by a db whose installed round is installed.
inline bool RoundKept(const RoundManifest& installed, uint64_t v) {
  return v <= installed.version && v + installed.keep > installed.version;
}

// The round manifest of kept round `version` at the store's view (the installed one when
// nullopt); NotFound naming the kept rounds when it is not kept.
Result<RoundManifest> ReadKeptRound(RoundStore& store, std::optional<uint64_t> version);

// Rounds, and those among them whose manifest no machine holds a sound copy of (their
// files are not known).
struct RoundSet {
  std::vector<RoundManifest> rounds;
  std::vector<webdb::DamagedVersion> damaged;
  // Every version of both, for the round files to keep.
  std::vector<uint64_t> versions() const;
};

// The kept rounds at the store's view: installed, then the others newest first (a round
// no machine holds a sound copy of among the damaged).
Result<RoundSet> KeptRounds(RoundStore& store, const RoundManifest& installed);

// The rounds whose files writer `writer`'s section directory (section_dir, through env)
// must keep: the kept rounds at the view, newest first, then older rounds pinned by live
// readers in that directory (with remove_stale_pins, the pins of gone readers are removed).
Result<RoundSet> LiveRounds(RoundStore& store, nutchfs::Env& env, const std::string& section_dir,
                            const RoundManifest& installed, bool remove_stale_pins);

// Writer `writer`'s clean-up after installing `installed`: at every machine of its group
// that is not left out as unreachable, removes from the section directory the files that
// no round live there names (kept, or pinned by a live reader in that directory), then
// from the meta copies of `meta_machines` the round files of rounds no copy keeps. A
// failure at the group's own machine for fs (its home for a NutchFs outside the group)
// is returned; one at another machine is a warning (that copy is cleaned up next time).
// While a live round is damaged on every machine its files are not known: then only
// temporary files leave the section directories, and a warning names the round and
// `webdb drop-version --config`.
Status CollectRounds(RoundStore& store, nutchfs::NutchFs& fs, const DistConfig& config,
                     int writer, const RoundManifest& installed,
                     const std::vector<std::string>& meta_machines);

// The kept rounds of the db, as webdb::ListVersions gives a single-machine db's versions
// (time_ms 0 for rounds written before rounds had a time). env: as RunOptions::env.
Result<webdb::VersionList> ListRounds(const DistConfig& config, nutchfs::Env* env = nullptr);

// Makes the sections of kept round `version` current again, as a new round on every
// machine. Refused (Busy) while a writer holds its LOCK, and (with the machine named)
// when a machine of the meta group cannot be reached or a section file of the round is
// not the one it names: nothing is changed then. A rollback cut short (some machines
// installed it) is finished by running it again, or by the next round.
Result<webdb::RollbackResult> RollbackDistDb(const DistConfig& config, uint64_t version,
                                             const webdb::StepHook& hook,
                                             nutchfs::Env* env = nullptr);

// Drops kept round `version`, not the installed one (`webdb drop-version --config`):
// removes ROUND-<version> from every machine of the meta group, then does every writer's
// clean-up. The way to drop a round damaged on every machine. Refused as RollbackDistDb
// is; Busy when a live reader pins it; NotFound when no machine has it or it is not kept;
// InvalidArgument for the installed round. Cut short, it is finished by running it again.
Status DropDistRound(const DistConfig& config, uint64_t version, nutchfs::Env* env = nullptr);

// Publishes a new round with the sections of the installed one and keep rounds kept
// (1 <= keep <= webdb::kMaxKeep), under the same rules as RollbackDistDb. Returns the
// new round's version (the installed one when it keeps that many already).
Result<uint64_t> SetDistKeep(const DistConfig& config, uint32_t keep, const webdb::StepHook& hook,
                             nutchfs::Env* env = nullptr);

// Writes, in writer i's section directory (env, dir), the files of a new version of its
// section `old` (their names of `version`, synced) and returns the section naming them.
using SectionRewrite = std::function<Result<webdb::Manifest>(
    int i, nutchfs::Env& env, const std::string& dir, const webdb::Manifest& old,
    uint64_t version)>;

// Publishes a new round whose sections are the installed round's rewritten by rewrite
// (their rows unchanged: docs/DISTRIBUTED.md, "Compaction"), with the rest of the
// installed round (breakpoints, keep, token, digests: a writer restarted after it still
// finds its calls applied), under the same rules as RollbackDistDb; a rewrite's error
// refuses it, leaving files no round names for the next clean-up. Returns the new round's
// version (the installed one, and nothing published, when no section changed).
Result<uint64_t> RewriteDistSections(const DistConfig& config, const SectionRewrite& rewrite,
                                     const webdb::StepHook& hook, nutchfs::Env* env = nullptr);

// What RereplicateDistDb did.
struct RereplicateResult {
  uint64_t version = 0;    // the installed round afterwards
  bool published = false;  // version is a new round naming restored holders
  int section_files = 0;   // section files copied to machines that lacked them
  int round_files = 0;     // ROUND files copied and CURRENT files written in the meta group
  std::vector<std::string> fresh;  // machines of the meta group that had no round installed

  bool nothing() const { return !published && section_files == 0 && round_files == 0; }
};

// `distwriter rereplicate` (docs/DISTRIBUTED.md, "Losing a machine for good"): makes every
// machine of each writer's group hold every file of each kept round's section (copied
// from a holder the round names that has them all, read end to end against the round's
// size and CRC32C where the round does not vouch for the copy), and every machine of the
// meta group hold the kept rounds' ROUND files and a CURRENT; then, if a section of the
// installed round has holders it does not name, publishes a round naming them, as a keep
// change is published (older rounds are never rewritten). Refused as RollbackDistDb is
// (a machine that cannot be reached is named with its location). Killed before
// publication, it leaves temporary files, which the next clean-up removes, and whole
// copies, which running it again finds (by size, and read end to end) and keeps.
Result<RereplicateResult> RereplicateDistDb(const DistConfig& config, const webdb::StepHook& hook,
                                            nutchfs::Env* env = nullptr);

}  // namespace distwriter

#endif  // DISTWRITER_ROUND_VERSIONS_H_
