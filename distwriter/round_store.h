// RoundStore: the one home of a distributed db's versions in the meta group
// (docs/DISTRIBUTED.md, "Files" and "The commit"), as webdb/db/manifest.h is for a
// single-machine db. Every machine of the meta group (each writer's) holds its own
//   ROUND-<N>  the round manifest (round_manifest.h) of round N, present only once the
//              round is decided, and
//   CURRENT    one line "ROUND-<N>": the round this machine has installed.
//
// Reads and the machine's own writes (Decide, Install, RemoveRoundsExcept) go to the
// meta group's view: this machine when it is a writer's, else writer 0's (the group's
// home), which is where readers look. PublishTo copies a decided round to one other
// machine; FindDecided looks on every machine. Files are written by write-temp + sync +
// rename, so each appears whole or not at all.
//
// Holds references to the NutchFs and config (both outlive it); uses scratch_dir, a
// local directory, for copies. Not thread-safe.
#ifndef DISTWRITER_ROUND_STORE_H_
#define DISTWRITER_ROUND_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/round_manifest.h"
#include "nutchfs/nutchfs.h"

namespace distwriter {

// "ROUND-000007" (at least six digits).
std::string RoundFileName(uint64_t version);
// The version a round file name stands for; nullopt for any other name (temporary
// files included).
std::optional<uint64_t> ParseRoundFileName(std::string_view name);

class RoundStore {
 public:
  RoundStore(nutchfs::NutchFs& fs, const DistConfig& config, std::string scratch_dir);

  // meta/ROUND-<version>, the file whose presence means the round is decided.
  nutchfs::NutchFile DecidedFile(uint64_t version) const;

  // The version CURRENT names at the view. NotFound "no distributed webdb ..." if there
  // is none; Corruption naming the file if it names no round.
  Result<uint64_t> InstalledVersion();
  // The same at one machine of the meta group (webdb verify: every writer's machine on
  // the same round). NotFound when that machine has no CURRENT.
  Result<uint64_t> InstalledVersionAt(const std::string& machine);
  // The round manifest CURRENT names at the view, checked against the config's k.
  Result<RoundManifest> ReadInstalled();
  // ROUND-<version> at the view, or nullopt if it is not there. Every machine of the meta
  // group holds the same bytes: when the view's copy is damaged, another machine's sound
  // copy is returned, with a warning naming the damaged one (the error when none is).
  Result<std::optional<RoundManifest>> ReadDecided(uint64_t version);
  // ROUND-<version> at one machine of the meta group, or nullopt if it is not there.
  Result<std::optional<RoundManifest>> ReadDecidedAt(uint64_t version, const std::string& machine);
  // ROUND-<version> at the view or, if not there, at any other machine of the meta
  // group that has it; nullopt if none has.
  Result<std::optional<RoundManifest>> FindDecided(uint64_t version);

  // Writes ROUND-<N> at the view: the decision.
  Status Decide(const RoundManifest& round);
  // True if ROUND-<version> is at machine `machine` of the meta group (false also when
  // the machine cannot be asked).
  bool HasDecidedAt(uint64_t version, const std::string& machine);
  // Writes ROUND-<N> at machine `machine` of the meta group.
  Status PublishTo(const RoundManifest& round, std::string_view machine);
  // Makes CURRENT at the view name ROUND-<version>. REQUIRES: that round file is there.
  Status Install(uint64_t version);
  // The same at machine `machine` of the meta group (rollback, keep).
  Status InstallAt(uint64_t version, const std::string& machine);
  // InvalidArgument "... already exists" if CURRENT is at the view.
  Status CheckNoDb();
  // Writes ROUND-<N> and then CURRENT naming it at every machine of the meta group
  // (`distwriter create`).
  Status CreateEverywhere(const RoundManifest& round);
  // Removes ROUND-<version> at machine `machine` of the meta group (drop-version); OK
  // when it is not there.
  Status DropAt(uint64_t version, const std::string& machine);
  // Removes the round files at machine `machine` of the meta group whose versions are
  // not in keep, and the temporary copies of round files up to the newest in keep (what a
  // writer or a publication stopped while writing one leaves; a later round's copy may
  // still be on its way, and a copy of an older one is redundant once it is installed).
  Status RemoveRoundsExcept(const std::vector<uint64_t>& keep, const std::string& machine);

 private:
  Result<nutchfs::NutchFs::Located> View(const std::string& name);
  // CURRENT or ROUND-<version> as found at `at` (the view or one machine).
  Result<uint64_t> ReadCurrent(const nutchfs::NutchFs::Located& at);
  // Makes CURRENT at `at` name ROUND-<version>.
  Status WriteCurrent(const nutchfs::NutchFs::Located& at, uint64_t version);
  Result<std::optional<RoundManifest>> ReadRound(const nutchfs::NutchFs::Located& at,
                                                 uint64_t version);
  Result<std::optional<RoundManifest>> Decode(Result<std::string> text, const std::string& where);
  std::string ScratchPath() const;

  nutchfs::NutchFs& fs_;
  const DistConfig& config_;
  const std::string scratch_dir_;
};

}  // namespace distwriter

#endif  // DISTWRITER_ROUND_STORE_H_
