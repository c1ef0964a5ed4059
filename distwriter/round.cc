#include "distwriter/round.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <xxhash.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "distwriter/commit.h"
#include "distwriter/dist_plumbing.h"
#include "distwriter/dist_rank.h"
#include "distwriter/input_digest.h"
#include "distwriter/round_store.h"
#include "distwriter/round_versions.h"
#include "distwriter/section_copies.h"
#include "distwriter/stage_zero.h"
#include "webdb/calls/call_file.h"
#include "webdb/calls/call_log.h"
#include "webdb/db/manifest.h"

namespace distwriter {
namespace {

constexpr size_t kUrlSampleSize = 4096;  // per writer, for choosing breakpoints
// The lanes a writer logs its calls through: one for each parse thread of the call file
// reader (with one lane, or none of its threads, the calls go through the first).
constexpr size_t kLanes = 2;

// Passes edits on while adding them to the input digest and keeping the bottom-k sample
// of page urls by their 64-bit XXH3 hash (a deterministic sample for choosing
// breakpoints; ties by url).
class DigestingSink final : public webdb::EditSink {
 public:
  using Sample = std::set<std::pair<uint64_t, std::string>>;
  DigestingSink(webdb::EditSink& next, InputDigest& digest, Sample* sample)
      : next_(next), digest_(digest), sample_(sample) {}

  Status Add(const webdb::EditView& e) override {
    digest_.Add(e);
    if (sample_ != nullptr) Keep(e.key);
    return next_.Add(e);
  }

 private:
  void Keep(std::string_view url) {
    const uint64_t h = XXH3_64bits(url.data(), url.size());
    if (sample_->size() >= kUrlSampleSize &&
        !(std::pair(h, url) < std::pair<uint64_t, std::string_view>(*sample_->rbegin()))) {
      return;
    }
    sample_->emplace(h, std::string(url));
    if (sample_->size() > kUrlSampleSize) sample_->erase(std::prev(sample_->end()));
  }

  webdb::EditSink& next_;
  InputDigest& digest_;
  Sample* sample_;
};

class Round {
 public:
  Round(const DistConfig& config, const RunOptions& options, nutchfs::NutchFs& fs)
      : config_(config), options_(options), fs_(fs), self_(options.writer) {}

  Result<RoundReport> Run();

 private:
  Result<std::string> Local(const nutchfs::NutchFile& f) { return fs_.LocalPath(f); }
  void Step(std::string_view name) {
    if (options_.before_step) options_.before_step(name);
  }
  std::chrono::milliseconds timeout() const {
    return std::chrono::milliseconds(config_.cluster.timeout_ms);
  }
  Status RunLocked();
  void TellPeers(const Status& why);
  Status RollForwardDecided();
  Status Installed(Exchange& exchange, const RoundManifest& installed);
  Result<bool> Attempt();
  Result<bool> DecidedMeanwhile(const std::string& digest);
  Status TidyApplied();
  void Report(const RoundManifest& round, bool already_applied);
  Result<std::string> LogCalls(webdb::StagePlumbing& plumbing);
  Result<bool> RestartedAfterCommit(const std::string& digest);
  Status Exchanged(DistPlumbing* plumbing, size_t sorter_budget, const std::string& digest);
  Status TakeLease();
  // OK while this run holds its lease; else why not, naming writer and machine.
  Status Held() const;
  Status HoldOwnSection();
  std::unique_ptr<Exchange> NewExchange(uint64_t round) {
    auto exchange =
        std::make_unique<Exchange>(fs_, config_, self_, round, lease_->epoch(), timeout());
    exchange->set_stop(options_.stop);
    return exchange;
  }
  Result<webdb::Manifest> RunStages(DistPlumbing& plumbing, const webdb::StageHooks& hooks);
  Result<std::optional<webdb::Manifest>> RunRankSteps(size_t sorter_budget);
  bool RankedAlready() const;
  Status AgreeOnRound(const std::string& digest);
  Status SendStageZero(const std::string& digest);
  Status ReadStageZero(const std::string& path, int from, std::vector<std::string>* urls);

  const DistConfig& config_;
  const RunOptions& options_;
  nutchfs::NutchFs& fs_;
  const int self_;
  nutchfs::Env& local_ = fs_.local_env();
  std::unique_ptr<nutchfs::Lease> lease_;
  std::string section_dir_;
  std::string work_dir_;
  std::optional<RoundStore> store_;
  std::optional<Committer> committer_;
  RoundManifest committed_;        // installed on this machine
  bool rolled_forward_ = false;    // committed_ was decided by peers, rolled forward here
  RoundManifest next_;
  DigestingSink::Sample sample_;
  std::unique_ptr<Exchange> exchange_;
  RoundReport report_;
};

// Reads every call file into the stage 1 and 3 sorters, each of the reader's parse
// threads logging the calls it parsed through a lane of its own (a CallLog, an input
// digest and a url sample each; webdb/calls/call_file.h, LogCalls); returns the input digest.
Result<std::string> Round::LogCalls(webdb::StagePlumbing& plumbing) {
  const bool sample = committed_.breakpoints.empty() && config_.k > 1;
  std::vector<InputDigest> digests(kLanes, InputDigest(config_.k, self_, options_.session));
  std::vector<DigestingSink::Sample> samples(kLanes);
  std::vector<std::unique_ptr<DigestingSink>> sinks;
  std::vector<webdb::CallLogLanes::Sinks> lanes;
  for (size_t i = 0; i < kLanes; ++i) {
    DigestingSink::Sample* lane_sample = sample ? &samples[i] : nullptr;
    sinks.push_back(std::make_unique<DigestingSink>(plumbing.Sink(1, i), digests[i], lane_sample));
    sinks.push_back(std::make_unique<DigestingSink>(plumbing.Sink(3, i), digests[i], nullptr));
    lanes.push_back({sinks[2 * i].get(), sinks[2 * i + 1].get()});
  }
  webdb::CallLogLanes log(lanes, static_cast<uint64_t>(self_));
  for (const std::string& path : options_.call_files) {
    NUTCHFS_ASSIGN_OR_RETURN(auto reader, webdb::CallFileReader::Open(local_, path));
    NUTCHFS_ASSIGN_OR_RETURN(uint64_t calls, reader->LogCalls(log, {}));
    report_.calls += calls;
  }
  for (size_t i = 1; i < kLanes; ++i) digests[0].Merge(digests[i]);
  // The bottom-k of the union is the bottom-k of the lanes' bottom-k.
  for (DigestingSink::Sample& s : samples) sample_.merge(s);
  while (sample_.size() > kUrlSampleSize) sample_.erase(std::prev(sample_.end()));
  return digests[0].Hex();
}

// Takes writer self's lease, and fences every change this run makes with it: once the
// lease is lost, nothing more is written (docs/DISTRIBUTED.md, "Leases and fencing").
Status Round::TakeLease() {
  const bool takeover = fs_.own_machine() != config_.writer_machines[self_];
  NUTCHFS_ASSIGN_OR_RETURN(lease_, fs_.TakeLease(config_.WriterFile(self_, "LOCK"), takeover));
  fs_.SetFence([this] { return Held(); });
  return Status::OK();
}

Status Round::Held() const {
  Status held = lease_->Check();
  if (held.ok()) return held;
  return Status::IOError(fmt::format("writer {} (machine {}): {}: this run changes nothing more",
                                     self_, fs_.own_machine(), held.message()));
}

Result<RoundReport> Round::Run() {
  NUTCHFS_ASSIGN_OR_RETURN(section_dir_, Local(config_.WriterFile(self_, "section")));
  NUTCHFS_ASSIGN_OR_RETURN(work_dir_, Local(config_.WriterFile(self_, "work")));
  NUTCHFS_RETURN_IF_ERROR(TakeLease());
  NUTCHFS_RETURN_IF_ERROR(local_.RemoveDirRecursively(work_dir_));
  NUTCHFS_RETURN_IF_ERROR(local_.CreateDirs(work_dir_));
  store_.emplace(fs_, config_, work_dir_);
  committer_.emplace(fs_, config_, self_, *store_, section_dir_, work_dir_,
                     [this](std::string_view step) { Step(step); });
  auto installed = store_->ReadInstalled();
  Status s = installed ? Status::OK() : installed.error();
  if (s.ok()) {
    committed_ = std::move(*installed);
    s = RunLocked();
    if (!s.ok()) TellPeers(s);
  }
  if (!s.ok()) {
    // The work area (round store scratch, sort runs) goes with the failed run, as after
    // a successful one; best effort: the next run removes it anyway.
    Status ignored = local_.RemoveDirRecursively(work_dir_);
    (void)ignored;
    return Err(s);
  }
  NUTCHFS_RETURN_IF_ERROR(local_.RemoveDirRecursively(work_dir_));
  // A run that lost its lease fails whatever it found (a round its successor applied
  // needs no write), as its release reports: success would tell a scheduler it did the work.
  if (Status released = lease_->Release(); !released.ok()) {
    return Err(
        released.WithContext(fmt::format("writer {} (machine {})", self_, fs_.own_machine())));
  }
  return report_;
}

Status Round::RunLocked() {
  // What fails before the stages is named like a stage's failure: writer, machine, step.
  const std::string where = fmt::format("writer {} (machine {}): before round {}: ", self_,
                                        fs_.own_machine(), committed_.version + 1);
  if (Status s = RollForwardDecided(); !s.ok()) {
    return s.WithContext(where + "rolling forward the rounds its peers decided");
  }
  if (Status s = HoldOwnSection(); !s.ok()) return s.WithContext(where + "copying its section");
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(bool again, Attempt());
    if (!again) return Status::OK();
  }
}

// A writer on a machine that is no holder of its section in the installed round (a
// takeover on a machine that missed rounds, a machine back from an outage) copies it
// there from a holder first (docs/DISTRIBUTED.md, "Replicas").
Status Round::HoldOwnSection() {
  const std::string& own = fs_.own_machine();
  const std::vector<std::string> holders =
      committed_.HoldersOf(self_, config_.writer_machines[self_]);
  if (std::find(holders.begin(), holders.end(), own) != holders.end()) return Status::OK();
  NUTCHFS_ASSIGN_OR_RETURN(std::string from, ReadableHolder(fs_, config_, committed_, self_));
  spdlog::warn("writer {}: machine {} holds no copy of its section of round {}: copying it "
               "from machine {}",
               self_, own, committed_.version, from);
  auto copied = CopySection(fs_, config_, self_, committed_.sections[self_], from, own);
  return copied ? Status::OK() : copied.error();
}

// A writer that fails its round publishes a failure marker, so that its peers stop at
// once instead of waiting out timeout_ms (docs/DISTRIBUTED.md, "Failure markers") —
// unless a peer's marker is what stopped it: that peer told everyone already.
void Round::TellPeers(const Status& why) {
  if (!lease_->Check().ok()) return;  // a successor may run the round: nothing to tell
  if (exchange_ == nullptr) exchange_ = NewExchange(committed_.version + 1);
  if (exchange_->saw_peer_failure()) return;
  exchange_->PublishFailure(why, work_dir_);
}

// Before it offers stage 0, a writer finishes every round its peers decided after the
// one it has installed (docs/DISTRIBUTED.md, "Roll forward"): so every writer starts a
// round from the same version.
Status Round::RollForwardDecided() {
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> decided,
                             store_->FindDecided(committed_.version + 1));
    if (!decided) return Status::OK();
    spdlog::warn("writer {}: round {} was decided by its peers; rolling it forward", self_,
                 decided->version);
    NUTCHFS_RETURN_IF_ERROR(committer_->RollForward(*decided));
    NUTCHFS_RETURN_IF_ERROR(Installed(*NewExchange(decided->version), *decided));
    rolled_forward_ = true;
  }
}

// Cleans up after installing `installed` over committed_, which it becomes.
Status Round::Installed(Exchange& exchange, const RoundManifest& installed) {
  NUTCHFS_RETURN_IF_ERROR(committer_->CleanUp(exchange, installed));
  committed_ = installed;
  return Status::OK();
}

void Round::Report(const RoundManifest& round, bool already_applied) {
  report_.already_applied = already_applied;
  report_.version = round.version;
  report_.pages = round.num_pages();
  report_.links = round.num_links();
  if (options_.rank) report_.rank = round.rank;
}

// One attempt at round committed_ + 1 with this writer's calls. True when that round was
// decided by the peers meanwhile without these calls: it is installed now, and the calls
// go to the next round.
Result<bool> Round::Attempt() {
  report_ = RoundReport{};
  sample_.clear();
  exchange_ = NewExchange(committed_.version + 1);
  // Markers of an earlier attempt at this round must not stop this one.
  NUTCHFS_RETURN_IF_ERROR(exchange_->ClearFailures());
  if (RankedAlready()) {
    NUTCHFS_RETURN_IF_ERROR(exchange_->RemoveIncoming());
    NUTCHFS_RETURN_IF_ERROR(TidyApplied());
    Report(committed_, true);
    return false;
  }
  NUTCHFS_ASSIGN_OR_RETURN(size_t sorter_budget,
                           webdb::SorterBudget(local_, section_dir_, committed_.sections[self_],
                                               options_.memory_budget));
  // A round of calls logs them into the stages' sorters; a rank round has only its
  // options for inputs.
  std::optional<DistPlumbing> plumbing;
  std::string digest;
  if (options_.rank) {
    digest = RankDigest(*options_.rank, config_.k, self_);
  } else {
    plumbing.emplace(local_, work_dir_, sorter_budget, *exchange_, self_, config_.k,
                     committed_.breakpoints);
    NUTCHFS_ASSIGN_OR_RETURN(digest, LogCalls(*plumbing));
  }
  // With a session the digest names this very session's calls: the installed round
  // applied them (it was killed in it, or is run again after it). Without one the calls
  // alone are its identity: calls the installed round applied for this writer are that
  // round's (a new round of them needs a session), and so is a round it was killed in and
  // its peers finished. No calls at all tell nothing: such a writer takes part in stage 0.
  if ((rolled_forward_ || !options_.session.empty() || report_.calls > 0) &&
      committed_.digests[self_] == digest) {
    NUTCHFS_RETURN_IF_ERROR(exchange_->RemoveIncoming());
    NUTCHFS_RETURN_IF_ERROR(TidyApplied());
    Report(committed_, true);
    return false;
  }
  NUTCHFS_ASSIGN_OR_RETURN(bool restarted, RestartedAfterCommit(digest));
  if (restarted) {
    NUTCHFS_RETURN_IF_ERROR(exchange_->RemoveIncoming());
    NUTCHFS_RETURN_IF_ERROR(TidyApplied());
    Report(committed_, true);
    return false;
  }
  Status s = Exchanged(plumbing ? &*plumbing : nullptr, sorter_budget, digest);
  for (int st = 0; st <= kCommitStage; ++st) report_.traffic[st] = exchange_->traffic(st);
  report_.bytes_sent = exchange_->bytes_sent();
  if (s.ok()) return false;
  // So that a retry with other inputs cannot meet this attempt's stage 0 file.
  Status ignored = exchange_->RetractStageZero();
  (void)ignored;  // the round failed already; that error is the one to report
  if (!exchange_->saw_decision()) return Err(s);
  return DecidedMeanwhile(digest);
}

// A rank whose options are those of the rank that made the installed round has its
// result installed already: a rank is idempotent (docs/DESIGN.md, "Link analysis").
bool Round::RankedAlready() const {
  return options_.rank && committed_.rank && committed_.rank->options == *options_.rank;
}

// A round found applied already: the installed one's clean-up may have been cut short
// (killed, or an I/O error after the switch). Removes what it would have: the section
// files and round manifests of rounds no longer kept.
Status Round::TidyApplied() {
  return committer_->Collect(committed_);
}

// The round this writer was attempting was decided by its peers (with calls of an earlier
// run of this writer) while it waited in stages 0..5: it rolls it forward; its calls are
// applied if they are the ones the round lists, else they go to the next round.
Result<bool> Round::DecidedMeanwhile(const std::string& digest) {
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> decided,
                           store_->ReadDecided(exchange_->round()));
  if (!decided) {
    return Err(Status::Corruption(fmt::format("writer {}: round {} was decided and then vanished",
                                              self_, exchange_->round())));
  }
  NUTCHFS_RETURN_IF_ERROR(committer_->RollForward(*decided));
  NUTCHFS_RETURN_IF_ERROR(Installed(*exchange_, *decided));
  rolled_forward_ = true;
  if (decided->digests[self_] == digest) {
    Report(*decided, true);
    return false;
  }
  for (const std::string& f : options_.call_files) {
    if (f == "-") {
      return Err(Status::IOError(fmt::format(
          "writer {}: round {} was decided by the other writers meanwhile without these calls "
          "(it is installed now); standard input cannot be read again: run them again",
          self_, decided->version)));
    }
  }
  spdlog::warn("writer {}: round {} was decided by the other writers meanwhile without these "
               "calls; they go to round {}",
               self_, decided->version, decided->version + 1);
  return true;
}

// True when this writer committed the round these very inputs made and was stopped
// before cleaning up after it: its group still holds the section manifest it sent itself
// in that round. Its only writer is this writer, before its commit, whereas the round's
// directory may be a peer's: a peer's copy of its manifest that arrives after this writer
// took the peer's decision and cleaned up makes it again.
Result<bool> Round::RestartedAfterCommit(const std::string& digest) {
  if (committed_.digests[self_] != digest) return false;
  std::unique_ptr<Exchange> committed = NewExchange(committed_.version);
  committed->set_token(committed_.token);
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<std::string> own, committed->Arrived(kCommitStage, self_));
  return own.has_value();
}

// Stages 0 to 6, each timed from its start to the start of the next. plumbing: a round
// of calls's; null for a rank round.
Status Round::Exchanged(DistPlumbing* plumbing, size_t sorter_budget, const std::string& digest) {
  auto clock = std::chrono::steady_clock::now();
  int current = 0;
  auto enter = [&](int stage) {
    const auto now = std::chrono::steady_clock::now();
    report_.stage_seconds[current] += std::chrono::duration<double>(now - clock).count();
    clock = now;
    current = stage;
  };
  Step("stage 0");
  NUTCHFS_RETURN_IF_ERROR(AgreeOnRound(digest));
  if (report_.already_applied) {
    enter(0);  // a rerun learnt so in stage 0: its time is stage 0's
    return TidyApplied();
  }
  if (plumbing != nullptr) plumbing->set_partition(next_.partition());
  // An earlier run with the same round token that finished its steps and sent its section
  // manifest: peers may decide with that one, so they must not run again.
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<SectionSent> sent, committer_->SentSection(*exchange_));
  std::optional<webdb::Manifest> section;
  if (sent) {
    section = sent->section;
  } else if (plumbing != nullptr) {
    NUTCHFS_ASSIGN_OR_RETURN(section, RunStages(*plumbing, {enter, options_.before_step}));
  } else {
    NUTCHFS_ASSIGN_OR_RETURN(section, RunRankSteps(sorter_budget));
    if (!section) {
      // No pages: every writer learnt so from the shared counts; nothing is published.
      Report(committed_, false);
      report_.rank.reset();
      return exchange_->RemoveIncoming();
    }
  }
  enter(kCommitStage);
  Step("commit");
  // The new section files are synced; their names must be too before a manifest naming
  // them leaves this machine, and so must every copy of them (section_copies.h).
  NUTCHFS_RETURN_IF_ERROR(local_.SyncDir(section_dir_));
  if (!sent) {
    NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> holders,
                             ReplicateSection(fs_, config_, self_, *section));
    sent = SectionSent{*section, std::move(holders)};
  }
  NUTCHFS_ASSIGN_OR_RETURN(RoundManifest installed, committer_->Commit(*exchange_, next_, *sent));
  enter(kCommitStage);
  Step("done");
  NUTCHFS_RETURN_IF_ERROR(Installed(*exchange_, installed));
  Report(installed, false);
  return Status::OK();
}

// A rank round's steps (webdb/rank/rank_engine.h) over this writer's section, its
// exchanges through the round's (docs/DISTRIBUTED.md, "Rank rounds"); nullopt when the
// db has no pages.
Result<std::optional<webdb::Manifest>> Round::RunRankSteps(size_t sorter_budget) {
  DistRankPlumbing plumbing(local_, work_dir_, sorter_budget, *exchange_, self_,
                            next_.partition());
  webdb::RankParams params;
  params.dir = section_dir_;
  params.manifest = fmt::format("{} section {}", RoundFileName(committed_.version), self_);
  params.work_dir = work_dir_;
  params.new_version = next_.version;
  params.options = *options_.rank;
  params.memory_budget = sorter_budget;
  params.progress = options_.progress;
  params.before_step = options_.before_step;
  params.on_iteration = options_.on_iteration;
  NUTCHFS_ASSIGN_OR_RETURN(webdb::RankOutcome outcome,
                           webdb::RunRank(local_, committed_.sections[self_], params, plumbing));
  return outcome.manifest;
}

// Stages 1..5 over this writer's section.
Result<webdb::Manifest> Round::RunStages(DistPlumbing& plumbing, const webdb::StageHooks& hooks) {
  webdb::WriterOptions engine_options{options_.memory_budget, options_.progress, hooks};
  engine_options.layers = options_.layers;
  engine_options.seeks = options_.seeks;
  // No keep: the round, not the section directory, is what is published as a version.
  webdb::UpdateParams params{section_dir_, next_.version, static_cast<uint64_t>(self_),
                             &engine_options, /*keep=*/std::nullopt};
  return webdb::RunUpdate(local_, committed_.sections[self_], params, plumbing);
}

// Stage 0: every writer sends its input digest (and url sample); the token is the MD5
// of all k digests and the breakpoints, if not yet chosen, the quantiles of all samples.
//
// A writer with no calls and no session whose inputs equal those of the committed round
// is ambiguous (Attempt): it may be restarted after its commit and clean-up, or a new
// round may give it an empty slice again. So it still takes part in stage 0. The round was
// applied already when all k digests are the committed ones, or when no peer turns up
// and its own digest is the committed one (a lone restart after commit).
Status Round::AgreeOnRound(const std::string& digest) {
  NUTCHFS_RETURN_IF_ERROR(SendStageZero(digest));
  next_ = committed_;
  next_.version = committed_.version + 1;
  next_.restores = 0;
  next_.rank.reset();  // calls change scores and links: no rank made what it holds
  std::vector<std::string> urls;
  for (int from = 0; from < config_.k; ++from) {
    auto in = exchange_->Receive(0, from);
    if (!in && in.error().IsTimeout() && committed_.digests[self_] == digest) {
      Report(committed_, true);
      return exchange_->RetractStageZero();
    }
    if (!in) return in.error();
    NUTCHFS_RETURN_IF_ERROR(ReadStageZero(*in, from, &urls));
  }
  if (next_.digests == committed_.digests) {
    Report(committed_, true);
    return exchange_->RemoveIncoming();  // read by no one else
  }
  std::string digests;
  for (const std::string& d : next_.digests) digests += d;
  next_.token = webdb::Md5Hex(webdb::Md5Of(digests)).substr(0, 16);
  exchange_->set_token(next_.token);
  if (next_.breakpoints.empty() && config_.k > 1) {
    NUTCHFS_ASSIGN_OR_RETURN(next_.breakpoints,
                             Partition::ChooseBreakpoints(std::move(urls), config_.k));
  }
  return Status::OK();
}

// One file per receiver: each names its receiver inside.
Status Round::SendStageZero(const std::string& digest) {
  StageZero zero{digest, {}};
  for (const auto& [hash, url] : sample_) zero.urls.push_back(url);
  for (int to = 0; to < config_.k; ++to) {
    const std::string path = fmt::format("{}/stage0-to{}.edits", work_dir_, to);
    NUTCHFS_ASSIGN_OR_RETURN(auto out, exchange_->Create(path, 0, to, false));
    NUTCHFS_RETURN_IF_ERROR(WriteStageZero(*out, zero));
    out.reset();
    NUTCHFS_RETURN_IF_ERROR(exchange_->Send(0, to, path));
  }
  return Status::OK();
}

// Takes writer `from`'s digest into next_ and its url sample into urls.
Status Round::ReadStageZero(const std::string& path, int from, std::vector<std::string>* urls) {
  NUTCHFS_ASSIGN_OR_RETURN(auto it, exchange_->OpenFile(path, 0, from, self_));
  auto got = distwriter::ReadStageZero(*it, path);
  if (!got) {
    return DiscardIfUnusable(
        local_, path,
        got.error().WithContext(fmt::format("writer {}: round {} stage 0: file from {}", self_,
                                            exchange_->round(), config_.Describe(from))));
  }
  next_.digests[from] = std::move(got->digest);
  urls->insert(urls->end(), std::make_move_iterator(got->urls.begin()),
               std::make_move_iterator(got->urls.end()));
  return Status::OK();
}

}  // namespace

Result<RoundReport> RunRound(const DistConfig& config, const RunOptions& options) {
  if (options.writer < 0 || options.writer >= config.k) {
    return Err(Status::InvalidArgument(fmt::format("writer {} is not in 0..{}", options.writer,
                                                   config.k - 1)));
  }
  const std::string& machine =
      options.machine.empty() ? config.writer_machines[options.writer] : options.machine;
  const std::vector<std::string>& holders = config.GroupMachines(options.writer);
  if (std::find(holders.begin(), holders.end(), machine) == holders.end()) {
    return Err(Status::InvalidArgument(fmt::format(
        "--machine {}: writer {} runs only on a machine of its group w{}: {}", machine,
        options.writer, options.writer, fmt::join(holders, ", "))));
  }
  nutchfs::NutchFsOptions fs_options;
  fs_options.env = options.env;
  fs_options.skip_unreachable = true;
  NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, machine, fs_options));
  return Round(config, options, *fs).Run();
}

}  // namespace distwriter
