#include "distwriter/dist_reader.h"

#include <array>
#include <vector>

#include "distwriter/round_store.h"
#include "nutchfs/nutchfs.h"
#include "webdb/manifest_table.h"

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
  DistTableSource(std::unique_ptr<nutchfs::NutchFs> fs, RoundManifest round)
      : fs_(std::move(fs)), round_(std::move(round)), partition_(round_.partition()) {}

  Status Open(const DistConfig& config) {
    tables_.resize(round_.k);
    for (int i = 0; i < round_.k; ++i) {
      for (int t = 0; t < webdb::kNumTables; ++t) {
        const webdb::TableFile& f = round_.sections[i].tables[t];
        NUTCHFS_ASSIGN_OR_RETURN(auto at, fs_->Locate(config.WriterFile(i, "section/" + f.name)));
        const webdb::TableRef ref{at.path, f,
                                  RoundFileName(round_.version) + " section " + std::to_string(i)};
        NUTCHFS_ASSIGN_OR_RETURN(tables_[i][t], webdb::OpenTableOf(*at.env, ref));
      }
    }
    return Status::OK();
  }

  std::unique_ptr<Iterator> NewIterator(TableId t) const override {
    std::vector<std::unique_ptr<Iterator>> parts;
    for (const auto& section : tables_) parts.push_back(section[static_cast<int>(t)]->NewIterator());
    return std::make_unique<ConcatIterator>(std::move(parts), partition_, t);
  }
  uint64_t NumPages() const override { return round_.num_pages(); }
  uint64_t NumLinks() const override { return round_.num_links(); }
  webdb::TableSize Size(TableId t) const override {
    webdb::TableSize size;
    for (const webdb::Manifest& section : round_.sections) {
      size.records += section.table(t).records;
      size.bytes += section.table(t).size;
    }
    return size;
  }

 private:
  std::unique_ptr<nutchfs::NutchFs> fs_;
  const RoundManifest round_;
  const Partition partition_;
  std::vector<std::array<std::unique_ptr<webdb::Table>, webdb::kNumTables>> tables_;
};

}  // namespace

Result<std::unique_ptr<webdb::Reader>> OpenDistReader(const std::string& config_path) {
  NUTCHFS_ASSIGN_OR_RETURN(DistConfig config, DistConfig::Load(config_path));
  return OpenDistReader(config);
}

Result<std::unique_ptr<webdb::Reader>> OpenDistReader(const DistConfig& config, nutchfs::Env* env) {
  // A round committed between reading the manifest and opening its files may have
  // removed files of the round before: the reader retries.
  return webdb::Reader::OpenRetrying([&]() -> Result<std::unique_ptr<webdb::TableSource>> {
    nutchfs::NutchFsOptions fs_options;
    fs_options.env = env;
    NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, "", fs_options));
    NUTCHFS_ASSIGN_OR_RETURN(RoundManifest round, RoundStore(*fs, config, "/tmp").ReadInstalled());
    auto source = std::make_unique<DistTableSource>(std::move(fs), std::move(round));
    NUTCHFS_RETURN_IF_ERROR(source->Open(config));
    return std::unique_ptr<webdb::TableSource>(std::move(source));
  });
}

Result<RoundManifest> ReadCommittedRound(const std::string& config_path) {
  NUTCHFS_ASSIGN_OR_RETURN(DistConfig config, DistConfig::Load(config_path));
  NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, ""));
  return RoundStore(*fs, config, "/tmp").ReadInstalled();
}

}  // namespace distwriter
