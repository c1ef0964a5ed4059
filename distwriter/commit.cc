#include "distwriter/commit.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "distwriter/round_versions.h"
#include "nutchfs/clock.h"
#include "webdb/db/versions.h"

namespace distwriter {
namespace {

constexpr uint8_t kSectionRecord = 0;
constexpr uint8_t kHoldersRecord = 1;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

Committer::Committer(nutchfs::NutchFs& fs, const DistConfig& config, int self, RoundStore& store,
                     std::string section_dir, std::string work_dir,
                     std::function<void(std::string_view)> step)
    : fs_(fs),
      config_(config),
      self_(self),
      store_(store),
      section_dir_(std::move(section_dir)),
      work_dir_(std::move(work_dir)),
      step_(std::move(step)) {}

void Committer::Step(const std::string& name) const {
  if (step_) step_(name);
}

// A section manifest file: a record holding the manifest's text, then one holding its
// holders, machines of the sender's group (docs/FORMAT.md, "Exchanged files").
Result<SectionSent> Committer::ReadSection(Exchange& exchange, const std::string& path, int from,
                                           int to) const {
  NUTCHFS_ASSIGN_OR_RETURN(auto it, exchange.OpenFile(path, kCommitStage, from, to));
  std::vector<std::string> records;
  for (; it->Valid() && records.size() < 3; it->Next()) records.emplace_back(it->edit().value);
  NUTCHFS_RETURN_IF_ERROR(it->status());
  auto bad = [&](const Status& s) {
    return Err(DiscardIfUnusable(fs_.local_env(), path,
                                 s.WithContext("section manifest of " + config_.Describe(from))));
  };
  if (records.size() != 2) {
    return bad(Status::Corruption(
        fmt::format("{}: {} records, not a section manifest and its holders", path,
                    records.size())));
  }
  auto section = webdb::Manifest::Decode(records[0], path);
  if (!section) return bad(section.error());
  SectionSent sent{std::move(*section), {}};
  const std::vector<std::string>& group = config_.GroupMachines(from);
  for (size_t start = 0; start <= records[1].size();) {
    const size_t comma = std::min(records[1].find(',', start), records[1].size());
    std::string machine = records[1].substr(start, comma - start);
    if (std::find(group.begin(), group.end(), machine) == group.end() ||
        std::find(sent.holders.begin(), sent.holders.end(), machine) != sent.holders.end()) {
      return bad(Status::Corruption(fmt::format(
          "{}: holder '{}' is not a machine of group {} (or is named twice)", path,
          machine.substr(0, 100), WriterGroup(from))));
    }
    sent.holders.push_back(std::move(machine));
    start = comma + 1;
  }
  return sent;
}

Status Committer::SendSection(Exchange& exchange, int to) {
  const std::string path = fmt::format("{}/section-to{}.edits", work_dir_, to);
  {
    NUTCHFS_ASSIGN_OR_RETURN(auto out, exchange.Create(path, kCommitStage, to, false));
    NUTCHFS_RETURN_IF_ERROR(out->Add({"", 0, kSectionRecord, own_.section.Encode()}));
    NUTCHFS_RETURN_IF_ERROR(out->Add({"", 0, kHoldersRecord, JoinNames(own_.holders)}));
    NUTCHFS_RETURN_IF_ERROR(out->Finish());
  }
  return exchange.Send(kCommitStage, to, path);
}

void Committer::Take(RoundManifest& next, int from, const SectionSent& sent) const {
  next.sections[from] = sent.section;
  next.SetHolders(from, sent.holders, config_.writer_machines[from]);
}

Result<RoundManifest> Committer::Commit(Exchange& exchange, RoundManifest next,
                                        const SectionSent& own) {
  own_ = own;
  // When this writer finished its section: a section sent by an earlier attempt keeps
  // the time it was sent with, so that every copy a peer may read says the same.
  if (own_.section.time_ms == 0) own_.section.time_ms = nutchfs::NowMs();
  // Itself first, then the others in index order: a manifest found anywhere is then also
  // in its own group (SentSection).
  for (int n = 0; n < config_.k; ++n) {
    const int to = n == 0 ? self_ : (n <= self_ ? n - 1 : n);
    Step(fmt::format("commit send {}", to));
    Status sent = SendSection(exchange, to);
    if (sent.ok()) continue;
    // A peer that decided the round meanwhile may have cleaned up the directory the
    // manifest was going to: the round is what matters, not this copy.
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> decided, store_.FindDecided(next.version));
    if (!decided) return Err(sent);
    Step("commit decide");
    return Adopt(*decided);
  }
  std::vector<bool> have(config_.k, false);
  Status waited;
  for (int from = 0; from < config_.k && waited.ok(); ++from) {
    auto in = exchange.Receive(kCommitStage, from);
    if (!in) {
      waited = in.error();
      break;
    }
    NUTCHFS_ASSIGN_OR_RETURN(SectionSent sent, ReadSection(exchange, *in, from, self_));
    Take(next, from, sent);
    have[from] = true;
  }
  if (!waited.ok()) {
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> decided,
                             store_.FindDecided(next.version));
    if (decided) {
      Step("commit decide");
      return Adopt(*decided);
    }
    if (exchange.saw_decision()) return Err(waited);  // it was there, then gone: not ours
    NUTCHFS_ASSIGN_OR_RETURN(bool all, Collect(exchange, next, have));
    if (!all) return Err(waited);
    spdlog::warn(
        "writer {}: round {}: collected the missing section manifests from the other "
        "writers' groups after: {}",
        self_, next.version, waited.ToString());
  }
  // The round's time: the last section's, which every writer computes alike. A rank
  // round's rank line: its sections all carry the same one (shared sums decided it).
  for (const webdb::Manifest& s : next.sections) next.time_ms = std::max(next.time_ms, s.time_ms);
  next.rank = next.sections[self_].rank;
  Step("commit decide");
  return Decide(next);
}

// Looks for the section manifests not in `have` in this writer's group (arrived late) and
// then in every other writer's group (a killed writer may have delivered its manifest to
// some peers only). True once all k are in next.
Result<bool> Committer::Collect(Exchange& exchange, RoundManifest& next, std::vector<bool>& have) {
  for (int from = 0; from < config_.k; ++from) {
    if (have[from]) continue;
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<std::string> here, exchange.Arrived(kCommitStage, from));
    std::string path = here.value_or(fmt::format("{}/collected-{}.edits", work_dir_, from));
    int to = self_;  // the receiver the file was meant for
    for (int at = 0; !here && at < config_.k; ++at) {
      if (at == self_) continue;
      Status s = exchange.Fetch(kCommitStage, from, at, path);
      if (s.ok()) {
        here = path;
        to = at;
      }
      if (!s.ok() && !s.IsNotFound()) {
        spdlog::warn("writer {}: collecting from {}: {}", self_, config_.Describe(at),
                     s.ToString());
      }
    }
    if (!here) return false;
    NUTCHFS_ASSIGN_OR_RETURN(SectionSent sent, ReadSection(exchange, path, from, to));
    Take(next, from, sent);
    have[from] = true;
  }
  return true;
}

Result<RoundManifest> Committer::Adopt(const RoundManifest& decided) {
  const webdb::Manifest& decided_own = decided.sections[self_];
  if (decided_own.version != own_.section.version || !decided_own.SameTables(own_.section)) {
    return Err(Status::Corruption(fmt::format(
        "writer {}: round {} was decided with another section of this writer than the one it "
        "wrote (token {} there)",
        self_, decided.version, decided.token)));
  }
  NUTCHFS_RETURN_IF_ERROR(RollForward(decided));
  return decided;
}

Result<RoundManifest> Committer::Decide(const RoundManifest& next) {
  // A peer may have published its decision here meanwhile: never write a second one.
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> here, store_.ReadDecided(next.version));
  if (here) return Adopt(*here);
  NUTCHFS_RETURN_IF_ERROR(store_.Decide(next));
  NUTCHFS_RETURN_IF_ERROR(PublishAndInstall(next));
  return next;
}

std::vector<std::string> Committer::InstallMachines() const {
  std::vector<std::string> machines{fs_.own_machine()};
  const std::string& home = config_.writer_machines[self_];
  if (home != fs_.own_machine() && !fs_.IsUnreachable(home)) machines.push_back(home);
  return machines;
}

Status Committer::PublishAndInstall(const RoundManifest& round) {
  const std::string& own = fs_.own_machine();
  const std::string& home = config_.writer_machines[self_];
  bool at_home = false;
  for (const std::string& machine : config_.cluster.FindGroup(kMetaGroup)->machines) {
    if (machine == own || fs_.IsUnreachable(machine)) continue;
    Step("commit publish " + machine);
    // A decided round is the only round of its number, so a copy there (a peer's) is this
    // one: writing it again would make k writers write k(k-1) copies of an O(k)-byte file.
    Status s = store_.HasDecidedAt(round.version, machine) ? Status::OK()
                                                           : store_.PublishTo(round, machine);
    if (s.ok()) {
      at_home = at_home || machine == home;
      continue;
    }
    spdlog::warn(
        "writer {}: round {} is decided, but publishing it to machine {} failed ({}); "
        "that machine's writer finds it when it runs next",
        self_, round.version, machine, s.ToString());
    if (nutchfs::MeansUnreachable(s)) fs_.MarkUnreachable(machine, s);
  }
  // A round rolled forward from another machine's copy may be missing here (its
  // decider could not publish it to this machine): CURRENT must never name a round file
  // this machine does not have.
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> here, store_.ReadDecided(round.version));
  if (!here) NUTCHFS_RETURN_IF_ERROR(store_.Decide(round));
  Step("commit install");
  NUTCHFS_RETURN_IF_ERROR(store_.Install(round.version));
  // Running on a replica (takeover): the home, where readers outside the group look,
  // installs the round too when it can be reached.
  if (at_home) {
    Status s = store_.InstallAt(round.version, home);
    if (!s.ok()) {
      spdlog::warn("writer {}: installing round {} at its home machine {}: {}", self_,
                   round.version, home, s.ToString());
    }
  }
  return Status::OK();
}

Status Committer::CheckSection(const RoundManifest& round) const {
  for (const webdb::TableFile* file : round.sections[self_].Files()) {
    const webdb::TableFile& f = *file;
    const std::string path = section_dir_ + "/" + f.name;
    auto size = fs_.local_env().GetFileSize(path);
    if (!size) {
      return size.error().WithContext(
          fmt::format("writer {}: round {} is decided, but its section file is not there", self_,
                      round.version));
    }
    if (*size != f.size) {
      return Status::Corruption(fmt::format(
          "writer {}: round {} is decided, but its section file {} has {} bytes where the round "
          "manifest says {}",
          self_, round.version, path, *size, f.size));
    }
  }
  return Status::OK();
}

Status Committer::RollForward(const RoundManifest& decided) {
  NUTCHFS_RETURN_IF_ERROR(CheckSection(decided));
  return PublishAndInstall(decided);
}

Status Committer::CleanUp(Exchange& exchange, const RoundManifest& installed) {
  NUTCHFS_RETURN_IF_ERROR(exchange.RemoveIncoming());
  return Collect(installed);
}

Status Committer::Collect(const RoundManifest& installed) {
  return CollectRounds(store_, fs_, config_, self_, installed, InstallMachines());
}

Result<std::optional<SectionSent>> Committer::SentSection(Exchange& exchange) {
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<std::string> path, exchange.Arrived(kCommitStage, self_));
  if (!path) return std::optional<SectionSent>();
  NUTCHFS_ASSIGN_OR_RETURN(SectionSent sent, ReadSection(exchange, *path, self_, self_));
  RoundManifest probe;
  probe.version = exchange.round();
  probe.sections.assign(config_.k, webdb::Manifest{});
  probe.sections[self_] = sent.section;
  if (!CheckSection(probe).ok()) return std::optional<SectionSent>();
  return std::optional<SectionSent>(std::move(sent));
}

}  // namespace distwriter
