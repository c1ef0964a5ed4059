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

// A section manifest file: one record holding the manifest's text (docs/FORMAT.md,
// "Exchanged files").
Result<webdb::Manifest> Committer::ReadSection(Exchange& exchange, const std::string& path,
                                               int from, int to) const {
  NUTCHFS_ASSIGN_OR_RETURN(auto it, exchange.OpenFile(path, kCommitStage, from, to));
  std::string text;
  int records = 0;
  for (; it->Valid(); it->Next(), ++records) text.assign(it->edit().value);
  NUTCHFS_RETURN_IF_ERROR(it->status());
  auto section = records == 1 ? webdb::Manifest::Decode(text, path)
                              : Result<webdb::Manifest>(Err(Status::Corruption(fmt::format(
                                    "{}: {} records, not one section manifest", path, records))));
  if (!section) {
    return Err(DiscardIfUnusable(
        fs_.local_env(), path,
        section.error().WithContext("section manifest of " + config_.Describe(from))));
  }
  return section;
}

Status Committer::SendSection(Exchange& exchange, const webdb::Manifest& section, int to) {
  const std::string path = fmt::format("{}/section-to{}.edits", work_dir_, to);
  {
    NUTCHFS_ASSIGN_OR_RETURN(auto out, exchange.Create(path, kCommitStage, to, false));
    NUTCHFS_RETURN_IF_ERROR(out->Add({"", 0, kSectionRecord, section.Encode()}));
    NUTCHFS_RETURN_IF_ERROR(out->Finish());
  }
  return exchange.Send(kCommitStage, to, path);
}

Result<RoundManifest> Committer::Commit(Exchange& exchange, RoundManifest next,
                                        const webdb::Manifest& section) {
  own_section_ = section;
  // When this writer finished its section: a section sent by an earlier attempt keeps
  // the time it was sent with, so that every copy a peer may read says the same.
  if (own_section_.time_ms == 0) own_section_.time_ms = nutchfs::NowMs();
  // Itself first, then the others in index order: a manifest found anywhere is then also
  // in its own group (SentSection).
  for (int n = 0; n < config_.k; ++n) {
    const int to = n == 0 ? self_ : (n <= self_ ? n - 1 : n);
    Step(fmt::format("commit send {}", to));
    Status sent = SendSection(exchange, own_section_, to);
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
    NUTCHFS_ASSIGN_OR_RETURN(next.sections[from], ReadSection(exchange, *in, from, self_));
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
    NUTCHFS_ASSIGN_OR_RETURN(next.sections[from], ReadSection(exchange, path, from, to));
    have[from] = true;
  }
  return true;
}

Result<RoundManifest> Committer::Adopt(const RoundManifest& decided) {
  const webdb::Manifest& decided_own = decided.sections[self_];
  if (decided_own.version != own_section_.version || decided_own.tables != own_section_.tables) {
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

Status Committer::PublishAndInstall(const RoundManifest& round) {
  const std::string& own = config_.writer_machines[self_];
  for (const std::string& machine : config_.cluster.FindGroup(kMetaGroup)->machines) {
    if (machine == own) continue;
    Step("commit publish " + machine);
    Status s = store_.PublishTo(round, machine);
    if (!s.ok()) {
      spdlog::warn(
          "writer {}: round {} is decided, but publishing it to machine {} failed ({}); "
          "that machine's writer finds it when it runs next",
          self_, round.version, machine, s.ToString());
    }
  }
  // A round rolled forward from another machine's copy may be missing here (its
  // decider could not publish it to this machine): CURRENT must never name a round file
  // this machine does not have.
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> here, store_.ReadDecided(round.version));
  if (!here) NUTCHFS_RETURN_IF_ERROR(store_.Decide(round));
  Step("commit install");
  return store_.Install(round.version);
}

Status Committer::CheckSection(const RoundManifest& round) const {
  for (int t = 0; t < webdb::kNumTables; ++t) {
    const webdb::TableFile& f = SectionFile(round.sections[self_], static_cast<webdb::TableId>(t));
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
  return CollectRounds(store_, config_, fs_.local_env(), section_dir_, self_, installed);
}

Result<std::optional<webdb::Manifest>> Committer::SentSection(Exchange& exchange) {
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<std::string> sent, exchange.Arrived(kCommitStage, self_));
  if (!sent) return std::optional<webdb::Manifest>();
  NUTCHFS_ASSIGN_OR_RETURN(webdb::Manifest section, ReadSection(exchange, *sent, self_, self_));
  RoundManifest probe;
  probe.version = exchange.round();
  probe.sections.assign(config_.k, webdb::Manifest{});
  probe.sections[self_] = section;
  if (!CheckSection(probe).ok()) return std::optional<webdb::Manifest>();
  return std::optional<webdb::Manifest>(std::move(section));
}

}  // namespace distwriter
