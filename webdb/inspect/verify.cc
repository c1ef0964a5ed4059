#include "webdb/inspect/verify.h"

#include <array>
#include <memory>

#include "webdb/db/manifest.h"
#include "webdb/db/reader.h"
#include "webdb/db/version_pin.h"
#include "webdb/db/versions.h"
#include "webdb/inspect/cross_check.h"
#include "webdb/inspect/table_check.h"
#include "webdb/table/table.h"

namespace webdb {
namespace {

// The tables of one manifest; a table that does not open reads as empty (the file
// checks have reported it, and the cross checks that need it are skipped).
class ManifestTableSource final : public TableSource {
 public:
  ManifestTableSource(nutchfs::Env& env, const std::string& dir, const Manifest& m)
      : manifest_(m) {
    for (int i = 0; i < kNumTables; ++i) {
      std::vector<std::unique_ptr<nutchfs::RandomAccessFile>> parts;
      for (const TableFile& f : m.tables[i]) {
        auto file = env.NewRandomAccessFile(dir + "/" + f.name);
        if (!file) break;
        parts.push_back(std::move(*file));
      }
      if (parts.size() != m.tables[i].size()) continue;
      auto table = Table::Open(std::move(parts));
      if (table) tables_[i] = std::move(*table);
    }
  }
  std::unique_ptr<Iterator> NewIterator(TableId t) const override {
    const auto& table = tables_[static_cast<int>(t)];
    return table ? table->NewIterator() : NewEmptyIterator();
  }
  uint64_t NumPages() const override { return manifest_.num_pages(); }
  uint64_t NumLinks() const override { return manifest_.num_links(); }
  TableSize Size(TableId t) const override { return {manifest_.records(t), manifest_.bytes(t)}; }

 private:
  const Manifest manifest_;
  std::array<std::unique_ptr<Table>, kNumTables> tables_;
};

// Files of the db's kind that no kept or pinned version names.
void CheckDbLeftovers(nutchfs::Env& env, const std::string& dir, const Manifest& current,
                      FindingLog& log) {
  auto live = LiveManifests(env, dir, current, /*remove_stale_pins=*/false);
  if (!live) return log.AddStatus(dir, live.error());
  std::vector<const Manifest*> manifests;
  for (const Manifest& m : *live) manifests.push_back(&m);
  CheckLeftovers(env, dir, manifests, log);
}

}  // namespace

void CheckLeftovers(nutchfs::Env& env, const std::string& dir,
                    const std::vector<const Manifest*>& live, FindingLog& log) {
  auto names = env.GetChildren(dir);
  if (!names) return log.AddStatus(dir, names.error());
  for (const std::string& name : *names) {
    if (IsTemporaryFileName(name) && !name.starts_with(".")) {
      log.Add({dir + "/" + name, "", "left over: temporary file of an interrupted write"});
      continue;
    }
    if (!IsDbFileName(name)) continue;
    bool used = false;
    for (const Manifest* m : live) {
      used = used || name == ManifestFileName(m->version) || m->NamesTableFile(name);
    }
    if (!used) log.Add({dir + "/" + name, "", "left over: named by no manifest"});
  }
}

Result<VerifySummary> VerifyDb(nutchfs::Env& env, const std::string& dir,
                               const VerifyOptions& options) {
  VerifySummary summary;
  FindingLog log(options.on_finding);
  if (options.tmp_env == nullptr) {
    return Err(Status::InvalidArgument("verify " + dir + ": no Env for the sorts' scratch files"));
  }
  if (!env.FileExists(dir + "/CURRENT")) return Err(Status::NotFound("no webdb at " + dir));
  auto current = ReadCurrentManifest(env, dir);
  if (!current) {
    log.AddStatus(dir + "/CURRENT", current.error());
    summary.findings = log.count();
    return summary;
  }
  auto manifest = current;
  if (options.version && *options.version != current->version) {
    manifest = ReadKeptManifest(env, dir, options.version);
    if (!manifest && manifest.error().IsNotFound()) return Err(manifest.error());
    if (!manifest) {
      log.AddStatus(dir + "/" + ManifestFileName(*options.version), manifest.error());
      summary.findings = log.count();
      return summary;
    }
  }
  // Best effort: a db on a read-only mount is verified unpinned.
  auto pin = VersionPin::Create(env, dir, manifest->version);
  summary.version = manifest->version;
  summary.pages = manifest->num_pages();
  summary.links = manifest->num_links();
  CrossCheckOptions cross{options.memory_budget, options.tmp_env, options.tmp_dir, {}, {}};
  for (int i = 0; i < kNumTables; ++i) {
    const auto t = static_cast<TableId>(i);
    const auto refs = TableRefsOf(dir, *manifest, t, ManifestFileName(manifest->version));
    cross.labels[i] = refs.front().path;
    cross.intact[i] = CheckTableParts(env, refs, t, {}, log, &summary.rows);
    summary.files += refs.size();
  }
  summary.writer_running = env.FileExists(dir + "/LOCK");
  if (!summary.writer_running) CheckDbLeftovers(env, dir, *current, log);
  Reader reader(std::make_unique<ManifestTableSource>(env, dir, *manifest));
  NUTCHFS_RETURN_IF_ERROR(CheckCrossTables(reader, cross, log));
  summary.findings = log.count();
  return summary;
}

}  // namespace webdb
