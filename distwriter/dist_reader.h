// Reading a distributed db: a webdb::TableSource over the k sections of the committed
// round. Each table's iterator concatenates its sections in order; Seek goes straight to
// the section owning the key. Sections are opened where they live (locally, on an NFS
// mount, or over SFTP) through NutchFS. The round is read from the meta group's view
// (this machine if it is one of the writers', else writer 0's machine).
#ifndef DISTWRITER_DIST_READER_H_
#define DISTWRITER_DIST_READER_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/round_manifest.h"
#include "nutchfs/env.h"
#include "nutchfs/nutchfs.h"
#include "webdb/db/reader.h"
#include "webdb/db/version_pin.h"
#include "webdb/table/layered_table.h"

namespace distwriter {

// Opens kept round `version` (the installed one when nullopt) of the distributed db
// described by the config file, pinned in every writer's section (round_versions.h)
// while it is open; NotFound naming the kept rounds when that round is not kept.
Result<std::unique_ptr<webdb::Reader>> OpenDistReader(
    const std::string& config_path, std::optional<uint64_t> version = std::nullopt);
// The same for a loaded config; env: as RunOptions::env (distwriter/round.h).
Result<std::unique_ptr<webdb::Reader>> OpenDistReader(
    const DistConfig& config, nutchfs::Env* env = nullptr,
    std::optional<uint64_t> version = std::nullopt);

// A reader's pins of one round, one in each writer's section directory.
using RoundPins = std::vector<std::unique_ptr<webdb::VersionPin>>;
// Where each section of a round is read: a holder's machine per writer
// (section_copies.h, ReadableHolder).
using SectionHolders = std::vector<std::string>;
Result<SectionHolders> ChooseHolders(nutchfs::NutchFs& fs, const DistConfig& config,
                                     const RoundManifest& round);

// The open tables of a round, by section then table.
using SectionTables =
    std::vector<std::array<std::unique_ptr<webdb::LayeredTable>, webdb::kNumTables>>;

// The TableSource of OpenDistReader over tables already open (tables[i] is section i of
// round); a null table reads as empty (webdb verify: a table found damaged). fs, when
// given, is what the tables read through, and lives as long as the source, as do pins.
std::unique_ptr<webdb::TableSource> NewDistTableSource(RoundManifest round, SectionTables tables,
                                                       std::unique_ptr<nutchfs::NutchFs> fs = {},
                                                       RoundPins pins = {});

// Where each section of kept round `version` of that db lives: the machines holding a
// copy, by writer (webdb stats --config).
Result<std::vector<std::vector<std::string>>> SectionHoldersOf(const std::string& config_path,
                                                               uint64_t version);

// The manifest of kept round `version` (the installed one when nullopt) of that db,
// without opening a table (quick stats).
Result<RoundManifest> ReadCommittedRound(const std::string& config_path,
                                         std::optional<uint64_t> version = std::nullopt);

}  // namespace distwriter

#endif  // DISTWRITER_DIST_READER_H_
