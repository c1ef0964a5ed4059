// RoundManifest: one committed version of a distributed db — its k sections (each a
// webdb::Manifest of table files on its writer's machine), the url breakpoints, the
// round token and each writer's input digest, the db's keep setting, when it was made,
// for a round made by a rollback the round it restores, and with replicas the machines
// holding each section (docs/DISTRIBUTED.md, "Replicas"). Its text form (docs/FORMAT.md) ends in a
// CRC32C line; every writer builds a byte-identical copy (round_store.h keeps them).
// A plain value.
#ifndef DISTWRITER_ROUND_MANIFEST_H_
#define DISTWRITER_ROUND_MANIFEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "distwriter/partition.h"
#include "webdb/db/manifest.h"

namespace distwriter {

// A section's table file: the writers never split a section's tables into parts
// (webdb::TableParts), and a round manifest names exactly one file per table and section.
inline const webdb::TableFile& SectionFile(const webdb::Manifest& section, webdb::TableId t) {
  return section.table(t).front();
}

struct RoundManifest {
  uint64_t version = 0;
  int k = 0;
  std::string token;                     // hex; empty for the version made by create
  std::vector<std::string> digests;      // per writer, hex; empty strings after create
  std::vector<std::string> breakpoints;  // url breakpoints; empty until chosen
  std::vector<webdb::Manifest> sections;
  uint32_t keep = webdb::kDefaultKeep;  // rounds kept readable, this one included
  uint64_t restores = 0;  // a rollback: the round whose sections this one names; 0 if none
  int64_t time_ms = 0;    // when it was made, ms since the epoch; 0: unknown
  // How its scores were computed, when a rank made them (or the round whose sections a
  // keep or rollback round names): docs/DESIGN.md, "Link analysis".
  std::optional<webdb::RankInfo> rank;
  // Per writer, the machines holding every file of its section, in its group's order;
  // empty (all of them, or the whole vector) where that is the writer's machine alone.
  std::vector<std::vector<std::string>> holders;

  uint64_t num_pages() const;
  uint64_t num_links() const;
  Partition partition() const { return Partition(k, breakpoints); }
  // Records writer i's holders; `alone` (the writer's own machine) is recorded as none.
  void SetHolders(int i, std::vector<std::string> machines, const std::string& alone);
  // Writer i's holders: the recorded ones, else `alone`.
  std::vector<std::string> HoldersOf(int i, const std::string& alone) const;

  std::string Encode() const;
  static Result<RoundManifest> Decode(std::string_view text, const std::string& path);
  bool operator==(const RoundManifest&) const = default;
};

}  // namespace distwriter

#endif  // DISTWRITER_ROUND_MANIFEST_H_
