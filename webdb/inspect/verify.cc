#include "webdb/inspect/verify.h"

#include <fmt/format.h>

#include <array>
#include <memory>
#include <set>

#include "webdb/db/manifest.h"
#include "webdb/db/manifest_table.h"
#include "webdb/db/reader.h"
#include "webdb/db/version_pin.h"
#include "webdb/db/versions.h"
#include "webdb/inspect/cross_check.h"
#include "webdb/inspect/layer_check.h"
#include "webdb/inspect/table_check.h"
#include "webdb/table/table.h"

namespace webdb {
namespace {

// The tables of one manifest; a table a file of which does not open reads as empty (the
// file checks have reported it, and the checks that need it are skipped).
class ManifestTableSource final : public TableSource {
 public:
  ManifestTableSource(nutchfs::Env& env, const std::string& dir, const Manifest& m)
      : manifest_(m) {
    for (int i = 0; i < kNumTables; ++i) {
      tables_[i] = OpenTableForChecks(env, dir, m, static_cast<TableId>(i));
    }
  }
  std::unique_ptr<Iterator> NewIterator(TableId t) const override {
    const auto& table = tables_[static_cast<int>(t)];
    return table ? table->NewIterator() : NewEmptyIterator();
  }
  uint64_t NumPages() const override { return manifest_.num_pages(); }
  uint64_t NumLinks() const override { return manifest_.num_links(); }
  TableSize Size(TableId t) const override { return SizeOf(manifest_, t); }

 private:
  const Manifest manifest_;
  std::array<std::unique_ptr<LayeredTable>, kNumTables> tables_;
};

// The kept versions' manifests that cannot be read (findings: each names the command that
// drops its version), then the files of the db's kind that no kept or pinned version
// names, unless some version's files are unknown; the other kept versions' manifests,
// newest first.
std::vector<Manifest> CheckDbDirectory(nutchfs::Env& env, const std::string& dir,
                                       const Manifest& current, bool writer_running,
                                       FindingLog& log) {
  auto live = LiveManifests(env, dir, current, /*remove_stale_pins=*/false);
  if (!live) {
    log.AddStatus(dir, live.error());
    return {};
  }
  for (const DamagedVersion& d : live->damaged) {
    log.Add({dir + "/" + ManifestFileName(d.version), "",
             fmt::format("version {} cannot be read ({}): its files are kept until `webdb "
                         "drop-version {} {}` drops it",
                         d.version, d.why.message(), dir, d.version)});
  }
  std::vector<const Manifest*> names;
  for (const Manifest& m : live->manifests) names.push_back(&m);
  // A version whose manifest cannot be read may name any file.
  const auto spared = [&](const std::string&) { return !live->damaged.empty(); };
  if (!writer_running) CheckLeftovers(env, dir, names, spared, log);
  std::vector<Manifest> kept;
  for (Manifest& m : live->manifests) {
    if (m.version != current.version && Kept(current, m.version)) kept.push_back(std::move(m));
  }
  return kept;
}

}  // namespace

void CheckLeftovers(nutchfs::Env& env, const std::string& dir,
                    const std::vector<const Manifest*>& live,
                    const std::function<bool(const std::string& name)>& spared,
                    FindingLog& log) {
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
    if (!used && !(spared && spared(name))) {
      log.Add({dir + "/" + name, "", "left over: named by no manifest"});
    }
  }
}

Result<VerifySummary> VerifyDb(nutchfs::Env& env, const std::string& dir,
                               const VerifyOptions& options) {
  VerifySummary summary;
  FindingLog log(options.on_finding, options.progress);
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
  summary.writer_running = env.FileExists(dir + "/LOCK");
  std::vector<Manifest> versions = {*manifest};
  for (Manifest& m : CheckDbDirectory(env, dir, *current, summary.writer_running, log)) {
    if (m.version != manifest->version) versions.push_back(std::move(m));
  }
  if (manifest->version != current->version) versions.insert(versions.begin() + 1, *current);
  // Every kept version's tables, each file once, and the layers of each table with runs
  // against each other: the first version's for its cross checks.
  CrossCheckOptions cross{options.memory_budget, options.tmp_env, options.tmp_dir, {}, {}};
  std::set<std::string> read;
  for (const Manifest& m : versions) {
    summary.versions_checked.push_back(m.version);
    const std::string named_by = ManifestFileName(m.version);
    for (int i = 0; i < kNumTables; ++i) {
      const auto t = static_cast<TableId>(i);
      bool intact = CheckTableLayers(env, dir, m, t, named_by, {}, log, &summary.rows,
                                     &summary.files, &read);
      if (intact && !m.runs_of(t).empty()) {
        auto layered = OpenTableForChecks(env, dir, m, t);
        intact = layered && CheckLayers(*layered, t, named_by, log);
      }
      if (&m == &versions.front()) {
        cross.labels[i] = dir + "/" + m.table(t).front().name;
        cross.intact[i] = intact;
      }
    }
  }
  Reader reader(std::make_unique<ManifestTableSource>(env, dir, *manifest));
  NUTCHFS_RETURN_IF_ERROR(CheckCrossTables(reader, cross, log));
  summary.findings = log.count();
  return summary;
}

}  // namespace webdb
