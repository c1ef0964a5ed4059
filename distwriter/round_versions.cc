#include "distwriter/round_versions.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>

#include "distwriter/section_copies.h"
#include "nutchfs/clock.h"
#include "nutchfs/nutchfs.h"
#include "webdb/db/manifest.h"
#include "webdb/db/manifest_table.h"
#include "webdb/db/version_pin.h"

namespace distwriter {
namespace {

// "5, 4 and 3"
std::string VersionsText(const std::vector<uint64_t>& versions) {
  std::string out;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (i > 0) out += i + 1 == versions.size() ? " and " : ", ";
    out += std::to_string(versions[i]);
  }
  return out;
}

// Takes round v into set when some machine holds it: damaged when no copy is sound.
Status TakeRound(RoundStore& store, uint64_t v, RoundSet& set) {
  auto round = store.ReadDecided(v);
  if (!round && round.error().IsCorruption()) {
    set.damaged.push_back({v, round.error()});
    return Status::OK();
  }
  if (!round) return round.error();
  if (*round) set.rounds.push_back(std::move(**round));
  return Status::OK();
}

bool SameSections(const RoundManifest& a, const RoundManifest& b) {
  if (a.k != b.k) return false;
  for (int i = 0; i < a.k; ++i) {
    if (!a.sections[i].SameTables(b.sections[i])) return false;
  }
  return true;
}

// An operator's change of a distributed db (rollback, keep): holds every writer's LOCK
// for its life, so that no round runs meanwhile, and reaches every machine of the meta
// group before it changes anything.
class Admin {
 public:
  static Result<std::unique_ptr<Admin>> Open(const DistConfig& config, nutchfs::Env* env) {
    nutchfs::NutchFsOptions options;
    options.env = env;
    NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, "", options));
    auto admin = std::unique_ptr<Admin>(new Admin(config, std::move(fs)));
    NUTCHFS_RETURN_IF_ERROR(admin->LockWriters());
    return admin;
  }

  RoundStore& store() { return store_; }

  // Every machine's installed round. A round installed on some machines only (a
  // rollback or a round cut short), or decided and installed nowhere yet, is rolled
  // forward first, as the writers would: installed on every machine. Returns it. With
  // `fresh`, a machine that has installed no round (a replaced one) is added there and
  // left alone instead of failing.
  Result<RoundManifest> Installed(const webdb::StepHook& hook,
                                  std::vector<std::string>* fresh = nullptr) {
    std::map<std::string, uint64_t> at;
    uint64_t newest = 0;
    for (const std::string& machine : Machines()) {
      auto v = store_.InstalledVersionAt(machine);
      if (!v && fresh != nullptr && v.error().IsNotFound()) {
        fresh->push_back(machine);
        continue;
      }
      if (!v) return Err(v.error().WithContext(Where(machine)));
      at[machine] = *v;
      newest = std::max(newest, *v);
    }
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> round, store_.FindDecided(newest));
    if (!round) {
      return Err(Status::Corruption(fmt::format("round {} is installed but no machine has {}",
                                                newest, RoundFileName(newest))));
    }
    while (true) {
      NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> decided,
                               store_.FindDecided(round->version + 1));
      if (!decided) break;
      round = std::move(decided);
    }
    if (round->k != config_.k) {
      return Err(Status::InvalidArgument(fmt::format(
          "round {} has {} writers, the config {}", round->version, round->k, config_.k)));
    }
    if (round->version != newest) NUTCHFS_RETURN_IF_ERROR(CheckSectionFiles(*round));
    for (const auto& [machine, version] : at) {
      if (version == round->version) continue;
      NUTCHFS_RETURN_IF_ERROR(Install(*round, machine, hook));
    }
    return *round;
  }

  // Writes next on every machine of the meta group, then installs it on every one.
  Status PublishEverywhere(const RoundManifest& next, const webdb::StepHook& hook) {
    for (const std::string& machine : Machines()) {
      if (hook) hook("publish " + machine);
      Status s = store_.PublishTo(next, machine);
      if (!s.ok()) return s.WithContext("machine " + machine);
    }
    for (const std::string& machine : Machines()) {
      if (hook) hook("install " + machine);
      Status s = store_.InstallAt(next.version, machine);
      if (!s.ok()) return s.WithContext("machine " + machine);
    }
    return Status::OK();
  }

  // Every writer's clean-up after `installed` (which the writers would do after their
  // next round): the files of rounds no longer kept go.
  Status Collect(const RoundManifest& installed, const webdb::StepHook& hook) {
    if (hook) hook("collect");
    for (int i = 0; i < config_.k; ++i) {
      NUTCHFS_RETURN_IF_ERROR(
          CollectRounds(store_, *fs_, config_, i, installed, {config_.writer_machines[i]}));
    }
    return Status::OK();
  }

  nutchfs::NutchFs& fs() { return *fs_; }

  // "machine M (user@host:port:/root)", for errors at one machine.
  std::string Where(const std::string& machine) const {
    const nutchfs::MachineConfig* m = config_.cluster.FindMachine(machine);
    return fmt::format("machine {} ({})", machine, m ? m->location.ToString() : "?");
  }

  // The kept rounds, installed first, each looked for on every machine (the view may be
  // a fresh one); a round no machine has a sound copy of is left out.
  Result<std::vector<RoundManifest>> KeptAnywhere(const RoundManifest& installed) {
    std::vector<RoundManifest> kept;
    for (uint64_t v = installed.version; v >= 1 && RoundKept(installed, v); --v) {
      NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> round, store_.FindDecided(v));
      if (round) kept.push_back(std::move(*round));
    }
    return kept;
  }

  // Copies to every machine of the meta group each of kept's ROUND files it lacks (or
  // holds damaged), then installs kept's first at each of `fresh`. Returns how many files
  // it wrote.
  Result<int> RestoreRoundFiles(const std::vector<RoundManifest>& kept,
                                const std::vector<std::string>& fresh,
                                const webdb::StepHook& hook) {
    int written = 0;
    for (const std::string& machine : Machines()) {
      for (const RoundManifest& round : kept) {
        auto there = store_.ReadDecidedAt(round.version, machine);
        if (!there && !there.error().IsCorruption()) {
          return Err(there.error().WithContext(Where(machine)));
        }
        if (there && *there) continue;
        if (hook) hook("publish " + machine);
        Status s = store_.PublishTo(round, machine);
        if (!s.ok()) return Err(s.WithContext(Where(machine)));
        ++written;
      }
    }
    for (const std::string& machine : fresh) {
      if (hook) hook("install " + machine);
      Status s = store_.InstallAt(kept.front().version, machine);
      if (!s.ok()) return Err(s.WithContext(Where(machine)));
      ++written;
    }
    return written;
  }

  // Makes every machine of writer's group hold every file of its section in round, copied
  // from the first holder the round names that has every file with its size (a holder may
  // have lost them since: a replaced machine that older rounds name); the files of a
  // machine the round does not name are read end to end first (CopySection's
  // check_bytes). Returns the machines that hold it now, in the group's order, and adds
  // the files copied to *copied.
  Result<std::vector<std::string>> RestoreSection(const RoundManifest& round, int writer,
                                                  int* copied) {
    const webdb::Manifest& section = round.sections[writer];
    const std::vector<std::string> holders =
        round.HoldersOf(writer, config_.writer_machines[writer]);
    std::string from;
    Status lacking;
    for (const std::string& holder : holders) {
      auto whole = CopySection(*fs_, config_, writer, section, holder, holder);
      if (whole) {
        from = holder;
        break;
      }
      if (!whole.error().IsCorruption()) return Err(whole.error().WithContext(Where(holder)));
      lacking = whole.error();
    }
    if (from.empty()) {
      return Err(Status::Corruption(
          fmt::format("{}: no holder of its section in {} has all its files: {}",
                      config_.Describe(writer), RoundFileName(round.version), lacking.message())));
    }
    for (const std::string& machine : config_.GroupMachines(writer)) {
      if (machine == from) continue;
      const bool holder = std::find(holders.begin(), holders.end(), machine) != holders.end();
      auto n = CopySection(*fs_, config_, writer, section, from, machine, !holder);
      if (!n) {
        return Err(n.error().WithContext(
            fmt::format("{}: copy to {}", config_.Describe(writer), Where(machine))));
      }
      *copied += *n;
    }
    return config_.GroupMachines(writer);
  }

  // Removes ROUND-<version> from every machine of the meta group, the view last: until
  // then a rerun finds the round to drop there.
  Status DropEverywhere(uint64_t version) {
    std::vector<std::string> machines = Machines();
    NUTCHFS_ASSIGN_OR_RETURN(auto view, fs_->Locate(store_.DecidedFile(version)));
    std::stable_partition(machines.begin(), machines.end(), [&](const std::string& m) {
      auto at = fs_->LocateAt(store_.DecidedFile(version), m);
      return !at || at->path != view.path;
    });
    for (const std::string& machine : machines) {
      Status s = store_.DropAt(version, machine);
      if (!s.ok()) return s.WithContext("machine " + machine);
    }
    return Status::OK();
  }

  // Live readers of round `version`, over every writer's section directory.
  Result<int> Readers(uint64_t version) {
    int readers = 0;
    for (int i = 0; i < config_.k; ++i) {
      NUTCHFS_ASSIGN_OR_RETURN(auto dir, fs_->Locate(config_.WriterFile(i, "section")));
      NUTCHFS_ASSIGN_OR_RETURN(auto pins,
                               webdb::LivePins(*dir.env, dir.path, nutchfs::NowMs(), false));
      if (auto it = pins.find(version); it != pins.end()) readers += it->second;
    }
    return readers;
  }

  // Every table file (base or run) of round's sections, where it lives, read end to end
  // against the size and CRC32C the round records: a round made current again by a rollback
  // or a keep change is read by no stage before it is (webdb/db/manifest_table.h).
  Status CheckSectionBytes(const RoundManifest& round) {
    for (int i = 0; i < round.k; ++i) {
      for (const webdb::TableFile* section_file : round.sections[i].Files()) {
        const webdb::TableFile& f = *section_file;
        auto at = fs_->Locate(config_.WriterFile(i, "section/" + f.name));
        if (!at) return at.error().WithContext(config_.Describe(i));
        Status s = webdb::CheckTableBytes(
            *at->env,
            {at->path, f, fmt::format("{} section {}", RoundFileName(round.version), i)});
        if (!s.ok()) return s.WithContext(config_.Describe(i));
      }
    }
    return Status::OK();
  }

  // Every table file (base or run) of round's sections, where it lives, with the size the
  // round names.
  Status CheckSectionFiles(const RoundManifest& round) {
    for (int i = 0; i < round.k; ++i) {
      for (const webdb::TableFile* section_file : round.sections[i].Files()) {
        const webdb::TableFile& f = *section_file;
        const nutchfs::NutchFile file = config_.WriterFile(i, "section/" + f.name);
        auto at = fs_->Locate(file);
        if (!at) return at.error().WithContext(config_.Describe(i));
        auto size = at->env->GetFileSize(at->path);
        if (!size) {
          return size.error().WithContext(fmt::format("{}: {} of round {}", config_.Describe(i),
                                                      f.name, round.version));
        }
        if (*size != f.size) {
          return Status::Corruption(fmt::format("{}: {} has {} bytes where round {} says {}",
                                                config_.Describe(i), at->path, *size,
                                                round.version, f.size));
        }
      }
    }
    return Status::OK();
  }

 private:
  Admin(const DistConfig& config, std::unique_ptr<nutchfs::NutchFs> fs)
      : config_(config), fs_(std::move(fs)), store_(*fs_, config_, "/tmp") {}

  const std::vector<std::string>& Machines() const {
    return config_.cluster.FindGroup(kMetaGroup)->machines;
  }

  Status LockWriters() {
    for (int i = 0; i < config_.k; ++i) {
      auto lease = fs_->TakeLease(config_.WriterFile(i, "LOCK"), false);
      if (!lease) return lease.error().WithContext(config_.Describe(i));
      leases_.push_back(std::move(*lease));
    }
    return Status::OK();
  }

  Status Install(const RoundManifest& round, const std::string& machine,
                 const webdb::StepHook& hook) {
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> there,
                             store_.ReadDecidedAt(round.version, machine));
    if (!there) {
      if (hook) hook("publish " + machine);
      Status s = store_.PublishTo(round, machine);
      if (!s.ok()) return s.WithContext("machine " + machine);
    }
    if (hook) hook("install " + machine);
    Status s = store_.InstallAt(round.version, machine);
    return s.ok() ? s : s.WithContext("machine " + machine);
  }

  const DistConfig& config_;
  std::unique_ptr<nutchfs::NutchFs> fs_;
  RoundStore store_;
  std::vector<std::unique_ptr<nutchfs::Lease>> leases_;  // released before fs_ goes
};

// What an operator's change reports when it is refused: nothing was changed (or, after
// the first publication, the change can be finished by running it again).
Status Refused(const Status& s, std::string_view what) {
  return s.WithContext(fmt::format("{} refused", what));
}

}  // namespace

Result<RoundSet> KeptRounds(RoundStore& store, const RoundManifest& installed) {
  RoundSet kept{{installed}, {}};
  for (uint64_t v = installed.version - 1; v >= 1 && RoundKept(installed, v); --v) {
    NUTCHFS_RETURN_IF_ERROR(TakeRound(store, v, kept));
  }
  return kept;
}

Result<RoundManifest> ReadKeptRound(RoundStore& store, std::optional<uint64_t> version) {
  NUTCHFS_ASSIGN_OR_RETURN(RoundManifest installed, store.ReadInstalled());
  if (!version || *version == installed.version) return installed;
  if (RoundKept(installed, *version)) {
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> round, store.ReadDecided(*version));
    if (round) return *round;
  }
  NUTCHFS_ASSIGN_OR_RETURN(RoundSet kept, KeptRounds(store, installed));
  std::vector<uint64_t> versions = kept.versions();
  std::sort(versions.rbegin(), versions.rend());
  return Err(Status::NotFound(fmt::format("round {} is not kept (the db keeps rounds {})",
                                          *version, VersionsText(versions))));
}

std::vector<uint64_t> RoundSet::versions() const {
  std::vector<uint64_t> out;
  for (const RoundManifest& r : rounds) out.push_back(r.version);
  for (const webdb::DamagedVersion& d : damaged) out.push_back(d.version);
  return out;
}

Result<RoundSet> LiveRounds(RoundStore& store, nutchfs::Env& env, const std::string& section_dir,
                            const RoundManifest& installed, bool remove_stale_pins) {
  NUTCHFS_ASSIGN_OR_RETURN(RoundSet live, KeptRounds(store, installed));
  NUTCHFS_ASSIGN_OR_RETURN(auto pins,
                           webdb::LivePins(env, section_dir, nutchfs::NowMs(), remove_stale_pins));
  for (const auto& [version, readers] : pins) {
    if (RoundKept(installed, version) || version > installed.version) continue;
    NUTCHFS_RETURN_IF_ERROR(TakeRound(store, version, live));
  }
  return live;
}

namespace {

// The clean-up of writer's section directory at one machine; adds the rounds live there
// to versions. While a live round is damaged on every machine its files are not known:
// then only temporary files leave the section directory, and a warning names the round
// and `webdb drop-version --config`.
Status CollectSectionAt(RoundStore& store, nutchfs::NutchFs& fs, const DistConfig& config,
                        int writer, const RoundManifest& installed, const std::string& machine,
                        std::vector<uint64_t>& versions) {
  NUTCHFS_ASSIGN_OR_RETURN(auto dir, fs.LocateAt(config.WriterFile(writer, "section"), machine));
  NUTCHFS_ASSIGN_OR_RETURN(RoundSet live, LiveRounds(store, *dir.env, dir.path, installed, true));
  for (uint64_t v : live.versions()) {
    if (std::find(versions.begin(), versions.end(), v) == versions.end()) versions.push_back(v);
  }
  if (!live.damaged.empty()) {
    for (const webdb::DamagedVersion& d : live.damaged) {
      spdlog::warn("{}: round {} has no sound copy on any machine ({}); no section file is "
                   "deleted until it is dropped (webdb drop-version --config CONFIG {}) or no "
                   "longer kept",
                   config.Describe(writer), d.version, d.why.message(), d.version);
    }
    return webdb::RemoveTemporaryFiles(*dir.env, dir.path);
  }
  std::vector<const webdb::Manifest*> sections;
  for (const RoundManifest& round : live.rounds) sections.push_back(&round.sections[writer]);
  return webdb::RemoveObsoleteFiles(*dir.env, dir.path, sections);
}

}  // namespace

Status CollectRounds(RoundStore& store, nutchfs::NutchFs& fs, const DistConfig& config,
                     int writer, const RoundManifest& installed,
                     const std::vector<std::string>& meta_machines) {
  const std::vector<std::string>& group = config.GroupMachines(writer);
  const bool own = std::find(group.begin(), group.end(), fs.own_machine()) != group.end();
  const std::string& must = own ? fs.own_machine() : group.front();
  std::vector<uint64_t> versions;
  for (const std::string& machine : group) {
    if (fs.IsUnreachable(machine)) continue;
    Status s = CollectSectionAt(store, fs, config, writer, installed, machine, versions);
    if (s.ok()) continue;
    if (machine == must) return s.WithContext(config.Describe(writer));
    spdlog::warn("{}: cleaning up its copy at machine {}: {}", config.Describe(writer), machine,
                 s.ToString());
  }
  for (const std::string& machine : meta_machines) {
    NUTCHFS_RETURN_IF_ERROR(store.RemoveRoundsExcept(versions, machine));
  }
  return Status::OK();
}

Result<webdb::VersionList> ListRounds(const DistConfig& config, nutchfs::Env* env) {
  nutchfs::NutchFsOptions options;
  options.env = env;
  NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, "", options));
  RoundStore store(*fs, config, "/tmp");
  NUTCHFS_ASSIGN_OR_RETURN(RoundManifest installed, store.ReadInstalled());
  NUTCHFS_ASSIGN_OR_RETURN(RoundSet kept, KeptRounds(store, installed));
  // Readers pin a round in every section: writer 0's pins count them.
  NUTCHFS_ASSIGN_OR_RETURN(auto section, fs->Locate(config.WriterFile(0, "section")));
  NUTCHFS_ASSIGN_OR_RETURN(auto pins,
                           webdb::LivePins(*section.env, section.path, nutchfs::NowMs(), false));
  webdb::VersionList list;
  list.keep = installed.keep;
  for (const webdb::DamagedVersion& d : kept.damaged) {
    webdb::VersionInfo info;
    info.version = d.version;
    info.damaged = d.why.message();
    list.versions.push_back(info);
  }
  for (const RoundManifest& round : kept.rounds) {
    webdb::VersionInfo info;
    info.version = round.version;
    info.time_ms = round.time_ms;
    info.pages = round.num_pages();
    info.links = round.num_links();
    for (const webdb::Manifest& s : round.sections) {
      for (int t = 0; t < webdb::kNumTables; ++t) {
        info.bytes += s.bytes(static_cast<webdb::TableId>(t));
      }
    }
    info.restores = round.restores;
    info.readers = pins.contains(round.version) ? pins.at(round.version) : 0;
    info.current = round.version == installed.version;
    list.versions.push_back(info);
  }
  std::sort(list.versions.begin(), list.versions.end(),
            [](const webdb::VersionInfo& a, const webdb::VersionInfo& b) {
              return a.version > b.version;
            });
  return list;
}

Result<webdb::RollbackResult> RollbackDistDb(const DistConfig& config, uint64_t version,
                                             const webdb::StepHook& hook, nutchfs::Env* env) {
  auto admin = Admin::Open(config, env);
  if (!admin) return Err(Refused(admin.error(), "rollback"));
  auto installed = (*admin)->Installed(hook);
  if (!installed) return Err(Refused(installed.error(), "rollback"));
  if (hook) hook("rollback");
  if (installed->restores == version) {  // done, perhaps by a run cut short before its clean-up
    NUTCHFS_RETURN_IF_ERROR((*admin)->Collect(*installed, hook));
    return webdb::RollbackResult{installed->version, false};
  }
  auto target = ReadKeptRound((*admin)->store(), version);
  if (!target) return Err(Refused(target.error(), "rollback"));
  if (SameSections(*installed, *target)) {
    NUTCHFS_RETURN_IF_ERROR((*admin)->Collect(*installed, hook));
    return webdb::RollbackResult{installed->version, false};
  }
  Status checked = (*admin)->CheckSectionBytes(*target);
  if (!checked.ok()) return Err(Refused(checked, "rollback"));
  RoundManifest next = *target;
  next.version = installed->version + 1;
  next.keep = installed->keep;
  next.restores = version;
  next.token.clear();
  next.digests.assign(config.k, "");
  next.time_ms = nutchfs::NowMs();
  NUTCHFS_RETURN_IF_ERROR((*admin)->PublishEverywhere(next, hook));
  NUTCHFS_RETURN_IF_ERROR((*admin)->Collect(next, hook));
  return webdb::RollbackResult{next.version, true};
}

Status DropDistRound(const DistConfig& config, uint64_t version, nutchfs::Env* env) {
  auto admin = Admin::Open(config, env);
  if (!admin) return Refused(admin.error(), "drop-version");
  auto installed = (*admin)->Installed(nullptr);
  if (!installed) return Refused(installed.error(), "drop-version");
  if (version == installed->version) {
    return Status::InvalidArgument(fmt::format(
        "round {} is the installed round of {}: roll back to another one first", version,
        config.db()));
  }
  bool anywhere = false;
  for (const std::string& machine : config.cluster.FindGroup(kMetaGroup)->machines) {
    auto at = (*admin)->store().ReadDecidedAt(version, machine);
    anywhere = anywhere || !at || *at;  // a damaged copy is there too
  }
  if (!RoundKept(*installed, version) || !anywhere) {
    return Status::NotFound(fmt::format("round {} of {} is not kept", version, config.db()));
  }
  NUTCHFS_ASSIGN_OR_RETURN(int readers, (*admin)->Readers(version));
  if (readers > 0) {
    return Status::Busy(fmt::format("round {} of {} is read by {} live reader(s)", version,
                                    config.db(), readers));
  }
  NUTCHFS_RETURN_IF_ERROR((*admin)->DropEverywhere(version));
  return (*admin)->Collect(*installed, nullptr);
}

Result<uint64_t> RewriteDistSections(const DistConfig& config, const SectionRewrite& rewrite,
                                     const webdb::StepHook& hook, nutchfs::Env* env) {
  auto admin = Admin::Open(config, env);
  if (!admin) return Err(Refused(admin.error(), "rewrite"));
  auto installed = (*admin)->Installed(hook);
  if (!installed) return Err(Refused(installed.error(), "rewrite"));
  RoundManifest next = *installed;
  next.version = installed->version + 1;
  next.restores = 0;
  next.time_ms = nutchfs::NowMs();
  for (int i = 0; i < config.k; ++i) {
    auto dir = (*admin)->fs().Locate(config.WriterFile(i, "section"));
    if (!dir) return Err(Refused(dir.error().WithContext(config.Describe(i)), "rewrite"));
    auto section = rewrite(i, *dir->env, dir->path, installed->sections[i], next.version);
    if (!section) return Err(Refused(section.error().WithContext(config.Describe(i)), "rewrite"));
    next.sections[i] = std::move(*section);
  }
  if (SameSections(next, *installed)) return installed->version;
  Status checked = (*admin)->CheckSectionFiles(next);
  if (!checked.ok()) return Err(Refused(checked, "rewrite"));
  NUTCHFS_RETURN_IF_ERROR((*admin)->PublishEverywhere(next, hook));
  NUTCHFS_RETURN_IF_ERROR((*admin)->Collect(next, hook));
  return next.version;
}

Result<uint64_t> SetDistKeep(const DistConfig& config, uint32_t keep, const webdb::StepHook& hook,
                             nutchfs::Env* env) {
  if (keep < 1 || keep > webdb::kMaxKeep) {
    return Err(Status::InvalidArgument(fmt::format("keep {} is not in 1..{}", keep,
                                                   webdb::kMaxKeep)));
  }
  auto admin = Admin::Open(config, env);
  if (!admin) return Err(Refused(admin.error(), "keep"));
  auto installed = (*admin)->Installed(hook);
  if (!installed) return Err(Refused(installed.error(), "keep"));
  if (installed->keep == keep) {
    NUTCHFS_RETURN_IF_ERROR((*admin)->Collect(*installed, hook));
    return installed->version;
  }
  Status checked = (*admin)->CheckSectionBytes(*installed);
  if (!checked.ok()) return Err(Refused(checked, "keep"));
  // The same sections, digests and token: a writer restarted after the round before
  // still finds its calls applied.
  RoundManifest next = *installed;
  next.version = installed->version + 1;
  next.keep = keep;
  next.restores = 0;
  next.time_ms = nutchfs::NowMs();
  NUTCHFS_RETURN_IF_ERROR((*admin)->PublishEverywhere(next, hook));
  NUTCHFS_RETURN_IF_ERROR((*admin)->Collect(next, hook));
  return next.version;
}

Result<RereplicateResult> RereplicateDistDb(const DistConfig& config,
                                            const webdb::StepHook& hook, nutchfs::Env* env) {
  auto admin = Admin::Open(config, env);
  if (!admin) return Err(Refused(admin.error(), "rereplicate"));
  std::vector<std::string> fresh;
  auto installed = (*admin)->Installed(hook, &fresh);
  if (!installed) return Err(Refused(installed.error(), "rereplicate"));
  auto kept = (*admin)->KeptAnywhere(*installed);
  if (!kept) return Err(Refused(kept.error(), "rereplicate"));
  RereplicateResult result{installed->version, false, 0, 0, fresh};
  auto restore = [&](const RoundManifest& round, int i) {
    const std::string what = config.Describe(i) + " " + RoundFileName(round.version);
    if (hook) hook("restore " + what);
    return (*admin)->RestoreSection(round, i, &result.section_files);
  };
  RoundManifest next = *installed;
  bool holders_changed = false;
  for (int i = 0; i < config.k; ++i) {
    auto holders = restore(*installed, i);
    if (!holders) return Err(Refused(holders.error(), "rereplicate"));
    const std::string& home = config.writer_machines[i];
    holders_changed = holders_changed || *holders != installed->HoldersOf(i, home);
    next.SetHolders(i, std::move(*holders), home);
  }
  // Older rounds are never rewritten, but their files are restored too, for their
  // readers and a rollback to one: those of the rounds still kept after the one to
  // publish, if any. The installed one stays first, its ROUND file what a fresh machine
  // installs.
  const uint64_t newest = installed->version + (holders_changed ? 1 : 0);
  std::erase_if(*kept, [&](const RoundManifest& r) {
    return r.version != installed->version && r.version + installed->keep <= newest;
  });
  for (size_t r = 1; r < kept->size(); ++r) {
    for (int i = 0; i < config.k; ++i) {
      auto holders = restore((*kept)[r], i);
      if (!holders) return Err(Refused(holders.error(), "rereplicate"));
    }
  }
  auto written = (*admin)->RestoreRoundFiles(*kept, fresh, hook);
  if (!written) return Err(Refused(written.error(), "rereplicate"));
  result.round_files = *written;
  if (!holders_changed) return result;
  // The same sections, digests and token, as a keep change: a writer restarted after
  // the round before still finds its calls applied.
  next.version = installed->version + 1;
  next.restores = 0;
  next.time_ms = nutchfs::NowMs();
  NUTCHFS_RETURN_IF_ERROR((*admin)->PublishEverywhere(next, hook));
  NUTCHFS_RETURN_IF_ERROR((*admin)->Collect(next, hook));
  result.version = next.version;
  result.published = true;
  return result;
}

}  // namespace distwriter
