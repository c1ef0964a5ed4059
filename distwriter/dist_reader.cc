#include "distwriter/dist_reader.h"

#include <array>
#include <vector>

#include "distwriter/round_store.h"
#include "distwriter/round_versions.h"
#include "distwriter/section_copies.h"
#include "nutchfs/nutchfs.h"
#include "webdb/db/manifest_table.h"

namespace distwriter {
namespace {

using webdb::Iterator;
using webdb::TableId;

// The sections of one table, one after the other.
class ConcatIterator final : public Iterator {
 public:
  ConcatIterator(std::vector<std::unique_ptr<Iterator>> parts, const Partition& partition,
                 TableId table)
      : parts_(std::move(parts)), partition_(partition), table_(table) {}

  bool Valid() const override { return at_ < parts_.size() && parts_[at_]->Valid(); }
  void SeekToFirst() override {
    at_ = 0;
    parts_[0]->SeekToFirst();
    SkipExhausted();
  }
  void Seek(std::string_view target) override {
    at_ = static_cast<size_t>(partition_.SectionOf(table_, target));
    parts_[at_]->Seek(target);
    SkipExhausted();
  }
  void Next() override {
    parts_[at_]->Next();
    SkipExhausted();
  }
  std::string_view key() const override { return parts_[at_]->key(); }
  std::string_view value() const override { return parts_[at_]->value(); }
  Status status() const override {
    return at_ < parts_.size() ? parts_[at_]->status() : Status::OK();
  }

 private:
  // Moves on to the next non-empty section when this one is used up (and healthy).
  void SkipExhausted() {
    while (at_ < parts_.size() && !parts_[at_]->Valid() && parts_[at_]->status().ok() &&
           at_ + 1 < parts_.size()) {
      parts_[++at_]->SeekToFirst();
    }
  }

  std::vector<std::unique_ptr<Iterator>> parts_;
  const Partition& partition_;
  const TableId table_;
  size_t at_ = 0;
};

class DistTableSource final : public webdb::TableSource {
 public:
  DistTableSource(RoundManifest round, SectionTables tables, std::unique_ptr<nutchfs::NutchFs> fs,
                  RoundPins pins)
      : fs_(std::move(fs)), pins_(std::move(pins)), round_(std::move(round)),
        partition_(round_.partition()), tables_(std::move(tables)) {}

  std::unique_ptr<Iterator> NewIterator(TableId t) const override {
    std::vector<std::unique_ptr<Iterator>> parts;
    for (const auto& section : tables_) {
      const auto& table = section[static_cast<int>(t)];
      parts.push_back(table ? table->NewIterator() : webdb::NewEmptyIterator());
    }
    return std::make_unique<ConcatIterator>(std::move(parts), partition_, t);
  }
  uint64_t NumPages() const override { return round_.num_pages(); }
  uint64_t NumLinks() const override { return round_.num_links(); }
  webdb::TableSize Size(TableId t) const override {
    webdb::TableSize size;
    for (const webdb::Manifest& section : round_.sections) {
      size = webdb::Sum(size, webdb::SizeOf(section, t));
    }
    return size;
  }

 private:
  std::unique_ptr<nutchfs::NutchFs> fs_;
  const RoundPins pins_;  // released before fs_ goes
  const RoundManifest round_;
  const Partition partition_;
  const SectionTables tables_;
};

// Opens every table of the round at the holder chosen for its section, checked against
// its entry.
Result<SectionTables> OpenSections(nutchfs::NutchFs& fs, const DistConfig& config,
                                   const RoundManifest& round, const SectionHolders& holders) {
  SectionTables tables(round.k);
  for (int i = 0; i < round.k; ++i) {
    NUTCHFS_ASSIGN_OR_RETURN(auto at, fs.LocateAt(config.WriterFile(i, "section"), holders[i]));
    const std::string manifest = RoundFileName(round.version) + " section " + std::to_string(i);
    for (int t = 0; t < webdb::kNumTables; ++t) {
      NUTCHFS_ASSIGN_OR_RETURN(tables[i][t],
                               webdb::OpenLayeredTableOf(*at.env, at.path, round.sections[i],
                                                         static_cast<TableId>(t), manifest));
    }
  }
  return tables;
}

}  // namespace

Result<SectionHolders> ChooseHolders(nutchfs::NutchFs& fs, const DistConfig& config,
                                     const RoundManifest& round) {
  SectionHolders holders;
  for (int i = 0; i < round.k; ++i) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string machine, ReadableHolder(fs, config, round, i));
    holders.push_back(std::move(machine));
  }
  return holders;
}

std::unique_ptr<webdb::TableSource> NewDistTableSource(RoundManifest round, SectionTables tables,
                                                       std::unique_ptr<nutchfs::NutchFs> fs,
                                                       RoundPins pins) {
  return std::make_unique<DistTableSource>(std::move(round), std::move(tables), std::move(fs),
                                           std::move(pins));
}

// Pins round `version` in every writer's section directory at the holder it is read
// from; an error naming the writer.
Result<RoundPins> PinRound(nutchfs::NutchFs& fs, const DistConfig& config, uint64_t version,
                           const SectionHolders& holders) {
  RoundPins pins;
  for (int i = 0; i < config.k; ++i) {
    NUTCHFS_ASSIGN_OR_RETURN(auto at, fs.LocateAt(config.WriterFile(i, "section"), holders[i]));
    auto pin = webdb::VersionPin::Create(*at.env, at.path, version);
    if (!pin) return Err(pin.error().WithContext(config.Describe(i) + ": pinning round " +
                                                 std::to_string(version)));
    pins.push_back(std::move(*pin));
  }
  return pins;
}

Result<std::unique_ptr<webdb::Reader>> OpenDistReader(const std::string& config_path,
                                                      std::optional<uint64_t> version) {
  NUTCHFS_ASSIGN_OR_RETURN(DistConfig config, DistConfig::Load(config_path));
  return OpenDistReader(config, nullptr, version);
}

Result<std::unique_ptr<webdb::Reader>> OpenDistReader(const DistConfig& config, nutchfs::Env* env,
                                                      std::optional<uint64_t> version) {
  // A round committed between reading the manifest and making the pins may have removed
  // files of a round no longer kept: the reader retries.
  return webdb::Reader::OpenRetrying([&]() -> Result<std::unique_ptr<webdb::TableSource>> {
    nutchfs::NutchFsOptions fs_options;
    fs_options.env = env;
    NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, "", fs_options));
    RoundStore store(*fs, config, "/tmp");
    NUTCHFS_ASSIGN_OR_RETURN(RoundManifest round, ReadKeptRound(store, version));
    NUTCHFS_ASSIGN_OR_RETURN(SectionHolders holders, ChooseHolders(*fs, config, round));
    NUTCHFS_ASSIGN_OR_RETURN(RoundPins pins, PinRound(*fs, config, round.version, holders));
    // A collector that listed the pins before these were made deletes only rounds it no
    // longer keeps: still kept after the pins, the round is safe.
    auto still_kept = ReadKeptRound(store, round.version);
    if (!still_kept) return Err(still_kept.error());
    NUTCHFS_ASSIGN_OR_RETURN(SectionTables tables, OpenSections(*fs, config, round, holders));
    return NewDistTableSource(std::move(round), std::move(tables), std::move(fs), std::move(pins));
  });
}

Result<std::vector<std::vector<std::string>>> SectionHoldersOf(const std::string& config_path,
                                                               uint64_t version) {
  NUTCHFS_ASSIGN_OR_RETURN(DistConfig config, DistConfig::Load(config_path));
  NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, ""));
  RoundStore store(*fs, config, "/tmp");
  NUTCHFS_ASSIGN_OR_RETURN(RoundManifest round, ReadKeptRound(store, version));
  std::vector<std::vector<std::string>> holders;
  for (int i = 0; i < round.k; ++i) holders.push_back(round.HoldersOf(i, config.writer_machines[i]));
  return holders;
}

Result<RoundManifest> ReadCommittedRound(const std::string& config_path,
                                         std::optional<uint64_t> version) {
  NUTCHFS_ASSIGN_OR_RETURN(DistConfig config, DistConfig::Load(config_path));
  NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, ""));
  RoundStore store(*fs, config, "/tmp");
  return ReadKeptRound(store, version);
}

}  // namespace distwriter
