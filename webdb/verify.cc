#include "webdb/verify.h"

#include <array>
#include <memory>

#include "webdb/cross_check.h"
#include "webdb/manifest.h"
#include "webdb/reader.h"
#include "webdb/table.h"
#include "webdb/table_check.h"

namespace webdb {
namespace {

// The tables of one manifest; a table that does not open reads as empty (the file
// checks have reported it, and the cross checks that need it are skipped).
class ManifestTableSource final : public TableSource {
 public:
  ManifestTableSource(nutchfs::Env& env, const std::string& dir, const Manifest& m)
      : manifest_(m) {
    for (int i = 0; i < kNumTables; ++i) {
      auto table = Table::Open(env, dir + "/" + m.tables[i].name);
      if (table) tables_[i] = std::move(*table);
    }
  }
  std::unique_ptr<Iterator> NewIterator(TableId t) const override {
    const auto& table = tables_[static_cast<int>(t)];
    return table ? table->NewIterator() : NewEmptyIterator();
  }
  uint64_t NumPages() const override { return manifest_.num_pages(); }
  uint64_t NumLinks() const override { return manifest_.num_links(); }
  TableSize Size(TableId t) const override {
    return {manifest_.table(t).records, manifest_.table(t).size};
  }

 private:
  const Manifest manifest_;
  std::array<std::unique_ptr<Table>, kNumTables> tables_;
};

// Files of the db's kind that the manifest does not name.
void CheckLeftovers(nutchfs::Env& env, const std::string& dir, const Manifest& m,
                    FindingLog& log) {
  auto names = env.GetChildren(dir);
  if (!names) return log.AddStatus(dir, names.error());
  for (const std::string& name : *names) {
    if (!IsDbFileName(name) || name == ManifestFileName(m.version)) continue;
    bool used = false;
    for (const TableFile& f : m.tables) used = used || f.name == name;
    if (!used) log.Add({dir + "/" + name, "", "left over: named by no manifest"});
  }
}

}  // namespace

Result<VerifySummary> VerifyDb(nutchfs::Env& env, const std::string& dir,
                               const VerifyOptions& options) {
  VerifySummary summary;
  FindingLog log(options.on_finding);
  if (options.tmp_env == nullptr) {
    return Err(Status::InvalidArgument("verify " + dir + ": no Env for the sorts' scratch files"));
  }
  if (!env.FileExists(dir + "/CURRENT")) return Err(Status::NotFound("no webdb at " + dir));
  auto manifest = ReadCurrentManifest(env, dir);
  if (!manifest) {
    log.AddStatus(dir + "/CURRENT", manifest.error());
    summary.findings = log.count();
    return summary;
  }
  summary.version = manifest->version;
  summary.pages = manifest->num_pages();
  summary.links = manifest->num_links();
  CrossCheckOptions cross{options.memory_budget, options.tmp_env, options.tmp_dir, {}, {}};
  for (int i = 0; i < kNumTables; ++i) {
    TableCheck check{dir + "/" + manifest->tables[i].name, static_cast<TableId>(i),
                     manifest->tables[i], ManifestFileName(manifest->version), {}};
    cross.labels[i] = check.path;
    cross.intact[i] = CheckTableFile(env, check, log, &summary.rows);
    ++summary.files;
  }
  summary.writer_running = env.FileExists(dir + "/LOCK");
  if (!summary.writer_running) CheckLeftovers(env, dir, *manifest, log);
  Reader reader(std::make_unique<ManifestTableSource>(env, dir, *manifest));
  NUTCHFS_RETURN_IF_ERROR(CheckCrossTables(reader, cross, log));
  summary.findings = log.count();
  return summary;
}

}  // namespace webdb
