#include "distwriter/dist_verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <vector>

#include "distwriter/dist_reader.h"
#include "distwriter/round_store.h"
#include "distwriter/round_versions.h"
#include "nutchfs/nutchfs.h"
#include "nutchfs/publish.h"
#include "webdb/inspect/cross_check.h"
#include "webdb/inspect/layer_check.h"
#include "webdb/inspect/table_check.h"

namespace distwriter {
namespace {

using webdb::FindingLog;
using webdb::TableId;
using Located = nutchfs::NutchFs::Located;
// Where each section of the round is: its writer's section directory.
using SectionPlaces = std::vector<Located>;

// What the checks share.
struct DistCheck {
  nutchfs::NutchFs& fs;
  const DistConfig& config;
  RoundStore& store;
  const RoundManifest& installed;  // at the meta group's view
  const RoundManifest& round;      // the one verified: installed or a kept one
  const RoundSet& kept;            // the kept rounds, installed first
  FindingLog& log;
};

// "writer 1 (machine b)", or several, for the writers whose machine is `machine`.
std::string WritersOn(const DistConfig& config, const std::string& machine) {
  std::string out;
  for (int i = 0; i < config.k; ++i) {
    if (config.writer_machines[i] != machine) continue;
    if (!out.empty()) out += ", ";
    out += config.Describe(i);
  }
  return out.empty() ? "machine " + machine : out;
}

// Round files of one machine's meta directory other than the live ones (what a writer's
// clean-up keeps), the machine's installed round (a writer behind or ahead is one
// finding already) and the round after the db's (decided, the writers' next run rolls it
// forward), and visible temporary files.
void CheckRoundLeftovers(DistCheck& c, const Located& current, const std::vector<uint64_t>& live,
                         uint64_t installed, FindingLog& log) {
  const std::string dir = nutchfs::DirOf(current.path);
  auto names = current.env->GetChildren(dir);
  if (!names) return log.AddStatus(dir, names.error());
  for (const std::string& name : *names) {
    if (webdb::IsTemporaryFileName(name) && !name.starts_with(".")) {
      log.Add({dir + "/" + name, "", "left over: temporary file of an interrupted write"});
      continue;
    }
    std::optional<uint64_t> version = ParseRoundFileName(name);
    if (!version || *version == installed || *version == c.installed.version + 1 ||
        std::find(live.begin(), live.end(), *version) != live.end()) {
      continue;
    }
    log.Add({dir + "/" + name, "", "left over: a round neither kept nor pinned by a reader"});
  }
}

// One machine's copy of the db's round manifest, which its CURRENT names.
void CheckRoundCopy(DistCheck& c, const Located& current, const std::string& machine,
                    const std::string& who) {
  const std::string path =
      nutchfs::DirOf(current.path) + "/" + RoundFileName(c.installed.version);
  auto copy = c.store.ReadDecidedAt(c.installed.version, machine);
  if (!copy) {
    c.log.AddStatus(path, copy.error());
  } else if (!*copy) {
    c.log.Add({path, "", "missing: named by CURRENT of " + who});
  } else if (**copy != c.installed) {
    c.log.Add({path, "", "differs from the db's round manifest (the meta group's view)"});
  }
}

// One machine's copies of the kept rounds other than the installed one: each must be
// readable and the same as the sound copy found (a copy missing is not looked for).
void CheckKeptCopies(DistCheck& c, const std::string& machine, const Located& current) {
  for (const RoundManifest& round : c.kept.rounds) {
    if (round.version == c.installed.version) continue;
    auto copy = c.store.ReadDecidedAt(round.version, machine);
    const std::string path = nutchfs::DirOf(current.path) + "/" + RoundFileName(round.version);
    if (!copy) {
      c.log.Add({path, "", fmt::format("kept round {} cannot be read here ({}); another machine "
                                       "holds a sound copy: copy it over this one",
                                       round.version, copy.error().message())});
    } else if (*copy && **copy != round) {
      c.log.Add({path, "", fmt::format("differs from the sound copy of kept round {} of another "
                                       "machine", round.version)});
    }
  }
  for (const webdb::DamagedVersion& d : c.kept.damaged) {
    auto copy = c.store.ReadDecidedAt(d.version, machine);
    if (copy) continue;
    const std::string path = nutchfs::DirOf(current.path) + "/" + RoundFileName(d.version);
    c.log.Add({path, "", fmt::format("kept round {} cannot be read here ({}) nor on any other "
                                     "machine: its files are kept until `webdb drop-version "
                                     "--config CONFIG {}` drops it",
                                     d.version, copy.error().message(), d.version)});
  }
}

// One machine of the meta group: its CURRENT names the db's round, and its copy of that
// round's manifest is the db's; its copies of the other kept rounds are sound.
void CheckMachineRound(DistCheck& c, const std::string& machine,
                       const std::optional<std::vector<uint64_t>>& live_rounds) {
  auto at = c.fs.LocateAt(c.config.MetaFile("CURRENT"), machine);
  if (!at) return c.log.AddStatus("machine " + machine, at.error());
  const std::string who = WritersOn(c.config, machine);
  const std::string db_round = RoundFileName(c.installed.version);
  auto installed = c.store.InstalledVersionAt(machine);
  if (!installed && installed.error().IsNotFound()) {
    return c.log.Add({at->path, "", fmt::format("missing: {} has installed no round, the db is "
                                                "on {}", who, db_round)});
  }
  if (!installed) return c.log.AddStatus(at->path, installed.error().WithContext(who));
  if (*installed != c.installed.version) {
    c.log.Add({at->path, "",
               fmt::format("{} is on {}, {} the db's {}", who, RoundFileName(*installed),
                           *installed < c.installed.version ? "behind" : "ahead of", db_round)});
  } else {
    CheckRoundCopy(c, *at, machine, who);
  }
  CheckKeptCopies(c, machine, *at);
  if (live_rounds) CheckRoundLeftovers(c, *at, *live_rounds, *installed, c.log);
}

// Every table file of every section of round, read end to end, each key inside its
// section, then the layers of each section's tables against each other; a file in *read
// already (named by a round checked before) is not read again.
std::array<bool, webdb::kNumTables> CheckSections(DistCheck& c, const RoundManifest& round,
                                                  const SectionPlaces& places,
                                                  std::set<std::string>* read,
                                                  webdb::VerifySummary* summary) {
  std::array<bool, webdb::kNumTables> intact{true, true, true, true};
  const Partition partition = round.partition();
  const std::string manifest = RoundFileName(round.version);
  for (int i = 0; i < round.k; ++i) {
    const std::string section = fmt::format("{} section {}", manifest, i);
    const webdb::Manifest& m = round.sections[i];
    for (int t = 0; t < webdb::kNumTables; ++t) {
      const TableId table = static_cast<TableId>(t);
      auto in_range = [&partition, table, i](std::string_view key) {
        return partition.SectionOf(table, key) == i;
      };
      bool sound = webdb::CheckTableLayers(*places[i].env, places[i].path, m, table, section,
                                           in_range, c.log, &summary->rows, &summary->files,
                                           read);
      if (sound && !m.runs_of(table).empty()) {
        auto layered = webdb::OpenTableForChecks(*places[i].env, places[i].path, m, table);
        sound = layered && webdb::CheckLayers(*layered, table, section, c.log);
      }
      intact[t] = sound && intact[t];
    }
  }
  summary->versions_checked.push_back(round.version);
  return intact;
}

// The other copies of each section (docs/DISTRIBUTED.md, "Replicas"): every holder's copy
// checked like the one read, so that each is byte for byte the round's; a machine of the
// group that is no holder is a missing replica.
void CheckReplicas(DistCheck& c, const SectionHolders& read_at, webdb::VerifySummary* summary) {
  for (int i = 0; i < c.round.k; ++i) {
    const std::vector<std::string> holders =
        c.round.HoldersOf(i, c.config.writer_machines[i]);
    for (const std::string& machine : c.config.GroupMachines(i)) {
      if (machine == read_at[i]) continue;
      auto dir = c.fs.LocateAt(c.config.WriterFile(i, "section"), machine);
      if (!dir) {
        c.log.AddStatus(fmt::format("{}: its copy at machine {}", c.config.Describe(i), machine),
                        dir.error());
        continue;
      }
      if (std::find(holders.begin(), holders.end(), machine) == holders.end()) {
        c.log.Add({dir->path, "",
                   fmt::format("missing replica: machine {} holds no copy of {}'s section of {} "
                               "(it was out of reach when the round was committed); "
                               "the next round restores it",
                               machine, c.config.Describe(i), RoundFileName(c.round.version))});
        continue;
      }
      const Partition partition = c.round.partition();
      const std::string section =
          fmt::format("{} section {} at machine {}", RoundFileName(c.round.version), i, machine);
      std::set<std::string> read;
      for (int t = 0; t < webdb::kNumTables; ++t) {
        const TableId table = static_cast<TableId>(t);
        auto in_range = [&partition, table, i](std::string_view key) {
          return partition.SectionOf(table, key) == i;
        };
        webdb::CheckTableLayers(*dir->env, dir->path, c.round.sections[i], table, section,
                                in_range, c.log, &summary->rows, &summary->files, &read);
      }
    }
  }
}

// Files of each copy of each writer's section directory named by no live round (kept,
// or pinned by a reader there: round_versions.h); a group whose writer holds its lock is
// not looked at. Returns the versions of the rounds live in some section.
std::vector<uint64_t> CheckSectionLeftovers(DistCheck& c, const std::vector<bool>& running) {
  std::vector<uint64_t> versions;
  for (int i = 0; i < c.config.k; ++i) {
    for (const std::string& machine : c.config.GroupMachines(i)) {
      if (c.fs.IsUnreachable(machine)) continue;
      auto dir = c.fs.LocateAt(c.config.WriterFile(i, "section"), machine);
      if (!dir) continue;  // reported by CheckReplicas
      auto rounds = LiveRounds(c.store, *dir->env, dir->path, c.installed, false);
      if (!rounds) {
        c.log.AddStatus(dir->path, rounds.error());
        continue;
      }
      std::vector<const webdb::Manifest*> live;
      for (const RoundManifest& r : rounds->rounds) live.push_back(&r.sections[i]);
      for (uint64_t v : rounds->versions()) versions.push_back(v);
      // A round damaged everywhere may name any file; a writer that failed the round after
      // the db's keeps the section files it wrote (docs/DISTRIBUTED.md, "Restart").
      const uint64_t next = c.installed.version + 1;
      const bool known = rounds->damaged.empty();
      const auto spared = [&](const std::string& name) {
        return !known || webdb::TableFileVersion(name) == next;
      };
      if (!running[i]) webdb::CheckLeftovers(*dir->env, dir->path, live, spared, c.log);
    }
  }
  return versions;
}

// The writers holding their lease (their unfinished files are not left over).
std::vector<bool> RunningWriters(DistCheck& c) {
  std::vector<bool> running(c.config.k, false);
  for (int i = 0; i < c.config.k; ++i) {
    auto lease = c.fs.ReadLease(c.config.WriterFile(i, "LOCK"));
    if (!lease) c.log.AddStatus(c.config.Describe(i), lease.error());
    running[i] = !lease || (*lease && !(*lease)->released);
  }
  return running;
}

// The invariants between tables, over the concatenation of the sections.
Status CheckWholeDb(DistCheck& c, const SectionPlaces& places,
                    const std::array<bool, webdb::kNumTables>& intact,
                    const webdb::VerifyOptions& options) {
  SectionTables tables(c.round.k);
  for (int i = 0; i < c.round.k; ++i) {
    for (int t = 0; t < webdb::kNumTables; ++t) {
      tables[i][t] = webdb::OpenTableForChecks(*places[i].env, places[i].path,
                                               c.round.sections[i], static_cast<TableId>(t));
    }
  }
  const Partition partition = c.round.partition();
  webdb::CrossCheckOptions cross;
  cross.memory_budget = options.memory_budget;
  cross.tmp_env = options.tmp_env;
  cross.tmp_dir = options.tmp_dir;
  cross.intact = intact;
  for (int t = 0; t < webdb::kNumTables; ++t) {
    cross.labels[t] = fmt::format("{} of {} (all {} sections)", webdb::TableName(TableId(t)),
                                  RoundFileName(c.round.version), c.round.k);
  }
  cross.file_of = [&](TableId t, std::string_view key) {
    const int i = partition.SectionOf(t, key);
    return places[i].path + "/" + SectionFile(c.round.sections[i], t).name;
  };
  webdb::Reader reader(NewDistTableSource(c.round, std::move(tables)));
  return webdb::CheckCrossTables(reader, cross, c.log);
}

Result<SectionPlaces> LocateSections(nutchfs::NutchFs& fs, const DistConfig& config,
                                     const RoundManifest& round, const SectionHolders& holders) {
  SectionPlaces places(round.k);
  for (int i = 0; i < round.k; ++i) {
    NUTCHFS_ASSIGN_OR_RETURN(places[i], fs.LocateAt(config.WriterFile(i, "section"), holders[i]));
  }
  return places;
}

// Everything after the round is read.
Status CheckRound(DistCheck& c, const webdb::VerifyOptions& options,
                  webdb::VerifySummary* summary) {
  NUTCHFS_ASSIGN_OR_RETURN(SectionHolders holders, ChooseHolders(c.fs, c.config, c.round));
  NUTCHFS_ASSIGN_OR_RETURN(SectionPlaces places, LocateSections(c.fs, c.config, c.round, holders));
  const std::vector<bool> running = RunningWriters(c);
  for (bool r : running) summary->writer_running = summary->writer_running || r;
  const std::vector<uint64_t> live = CheckSectionLeftovers(c, running);
  for (const std::string& machine : c.config.cluster.FindGroup(kMetaGroup)->machines) {
    CheckMachineRound(c, machine,
                      summary->writer_running ? std::nullopt : std::optional(live));
  }
  std::set<std::string> read;
  const auto intact = CheckSections(c, c.round, places, &read, summary);
  for (const RoundManifest& kept : c.kept.rounds) {
    if (kept.version == c.round.version) continue;
    NUTCHFS_ASSIGN_OR_RETURN(SectionHolders kept_holders, ChooseHolders(c.fs, c.config, kept));
    NUTCHFS_ASSIGN_OR_RETURN(SectionPlaces kept_places,
                             LocateSections(c.fs, c.config, kept, kept_holders));
    CheckSections(c, kept, kept_places, &read, summary);
  }
  CheckReplicas(c, holders, summary);
  return CheckWholeDb(c, places, intact, options);
}

// CURRENT missing at the view: no db, unless another machine of the meta group has one
// (then the view's is missing, a finding).
Status CheckNoDb(nutchfs::NutchFs& fs, const DistConfig& config, RoundStore& store,
                 const Status& not_found, FindingLog& log) {
  for (const std::string& machine : config.cluster.FindGroup(kMetaGroup)->machines) {
    auto installed = store.InstalledVersionAt(machine);
    if (!installed) continue;
    NUTCHFS_ASSIGN_OR_RETURN(auto at, fs.Locate(config.MetaFile("CURRENT")));
    log.Add({at.path, "",
             fmt::format("missing: the meta group's view has installed no round, but {} is on {}",
                         WritersOn(config, machine), RoundFileName(*installed))});
    return Status::OK();
  }
  return not_found;
}

}  // namespace

Result<webdb::VerifySummary> VerifyDistDb(const DistConfig& config,
                                          const webdb::VerifyOptions& options,
                                          nutchfs::Env* env) {
  if (options.tmp_env == nullptr) {
    return Err(Status::InvalidArgument("verify " + config.db() +
                                       ": no Env for the sorts' scratch files"));
  }
  nutchfs::NutchFsOptions fs_options;
  fs_options.env = env;
  NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, "", fs_options));
  RoundStore store(*fs, config, options.tmp_dir);
  webdb::VerifySummary summary;
  FindingLog log(options.on_finding, options.progress);
  auto round = store.ReadInstalled();
  if (!round && round.error().IsNotFound()) {
    NUTCHFS_RETURN_IF_ERROR(CheckNoDb(*fs, config, store, round.error(), log));
    summary.findings = log.count();
    return summary;
  }
  if (!round) {
    NUTCHFS_ASSIGN_OR_RETURN(auto at, fs->Locate(config.MetaFile("CURRENT")));
    log.AddStatus(nutchfs::DirOf(at.path), round.error());
    summary.findings = log.count();
    return summary;
  }
  NUTCHFS_ASSIGN_OR_RETURN(RoundManifest verified, ReadKeptRound(store, options.version));
  NUTCHFS_ASSIGN_OR_RETURN(RoundSet kept, KeptRounds(store, *round));
  summary.version = verified.version;
  summary.pages = verified.num_pages();
  summary.links = verified.num_links();
  DistCheck check{*fs, config, store, *round, verified, kept, log};
  NUTCHFS_RETURN_IF_ERROR(CheckRound(check, options, &summary));
  summary.findings = log.count();
  return summary;
}

}  // namespace distwriter
