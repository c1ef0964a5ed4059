// Committer: how one writer makes a round the installed version on its machine — stage 6
// of a round it computed, the roll forward of a round its peers decided, and the
// clean-up after either (docs/DISTRIBUTED.md, "The commit", "Roll forward",
// "Collecting"). Every step is atomic on one machine, and a writer killed between any two
// is finished by whichever writer runs next:
//   send section manifest (itself first) -> gather k (collect the missing ones from the
//   other groups) -> decide (ROUND-<N> here) -> publish ROUND-<N> to each other machine
//   (best effort) -> install (CURRENT here).
// Steps are named for test kill points: "commit send <j>", "commit decide" (the wait is
// over: all manifests are here, or the round was found decided), "commit publish
// <machine>", "commit install".
//
// Holds references to the NutchFs, config and store, which outlive it. Not thread-safe.
#ifndef DISTWRITER_COMMIT_H_
#define DISTWRITER_COMMIT_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/exchange.h"
#include "distwriter/round_store.h"
#include "nutchfs/nutchfs.h"
#include "webdb/db/manifest.h"

namespace distwriter {

// What a writer sends in stage 6: its section's manifest and the machines holding it.
struct SectionSent {
  webdb::Manifest section;
  std::vector<std::string> holders;  // in its group's order
};

class Committer {
 public:
  // section_dir holds this writer's section files, work_dir its scratch files (both on
  // this machine); step is called with the name of each step before it begins.
  Committer(nutchfs::NutchFs& fs, const DistConfig& config, int self, RoundStore& store,
            std::string section_dir, std::string work_dir,
            std::function<void(std::string_view)> step);

  // Stage 6 of round `next` (complete but for its sections), whose exchange is
  // `exchange`: sends this writer's section manifest and holders (`own`, its files
  // already on every holder) to every writer, gathers all k,
  // decides, publishes and installs. If the wait fails (a failure marker, a timeout),
  // first rolls forward a round N decided anywhere, else collects the missing manifests
  // from the other writers' groups and decides with them. If a peer decides round N
  // meanwhile, rolls that forward. Returns the round installed.
  Result<RoundManifest> Commit(Exchange& exchange, RoundManifest next, const SectionSent& own);

  // Makes `decided`, decided elsewhere, the installed round here: checks that this
  // writer's section files exist with the sizes it records, publishes it to every other
  // machine of the meta group (best effort) and installs it.
  Status RollForward(const RoundManifest& decided);

  // After installing `installed`: removes this writer's exchange files of rounds up to
  // installed's, and the section files and round files of rounds it no longer keeps and
  // no live reader pins (round_versions.h).
  Status CleanUp(Exchange& exchange, const RoundManifest& installed);
  // The clean-up of CleanUp but for the exchange files: section files and round files of
  // rounds no longer live (a round found applied, whose clean-up was cut short).
  Status Collect(const RoundManifest& installed);

  // The section manifest this writer sent itself in stage 6 of exchange's round by an
  // earlier run with the same token, when it is in its group and names complete files:
  // then the stages need not (and must not) run again, since a peer may decide with it.
  Result<std::optional<SectionSent>> SentSection(Exchange& exchange);

 private:
  void Step(const std::string& name) const;
  Status CheckSection(const RoundManifest& round) const;
  Status SendSection(Exchange& exchange, int to);
  Result<SectionSent> ReadSection(Exchange& exchange, const std::string& path, int from,
                                  int to) const;
  // Takes writer `from`'s section and holders into next.
  void Take(RoundManifest& next, int from, const SectionSent& sent) const;
  Result<bool> Collect(Exchange& exchange, RoundManifest& next, std::vector<bool>& have);
  Result<RoundManifest> Adopt(const RoundManifest& decided);
  Result<RoundManifest> Decide(const RoundManifest& next);
  Status PublishAndInstall(const RoundManifest& round);
  // Where this writer installs rounds and cleans up round files: the machine it runs on
  // and, running on a replica, its home when that can be reached.
  std::vector<std::string> InstallMachines() const;

  nutchfs::NutchFs& fs_;
  const DistConfig& config_;
  const int self_;
  RoundStore& store_;
  const std::string section_dir_;
  const std::string work_dir_;
  const std::function<void(std::string_view)> step_;
  SectionSent own_;  // sent in Commit
};

}  // namespace distwriter

#endif  // DISTWRITER_COMMIT_H_
