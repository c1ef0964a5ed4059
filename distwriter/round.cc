#include "distwriter/round.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <map>

#include "distwriter/dist_plumbing.h"
#include "distwriter/round_manifest.h"
#include "distwriter/stage_zero.h"
#include "nutchfs/scoped_lock.h"
#include "webdb/call_file.h"
#include "webdb/call_log.h"
#include "webdb/edit_file.h"
#include "webdb/manifest.h"

namespace distwriter {
namespace {

constexpr size_t kUrlSampleSize = 4096;  // per writer, for choosing breakpoints

class Md5Stream {
 public:
  Md5Stream() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_md5(), nullptr); }
  ~Md5Stream() { EVP_MD_CTX_free(ctx_); }
  Md5Stream(const Md5Stream&) = delete;
  Md5Stream& operator=(const Md5Stream&) = delete;
  void Update(std::string_view data) { EVP_DigestUpdate(ctx_, data.data(), data.size()); }
  std::string HexDigest() {
    webdb::Md5 md5;
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx_, md5.data(), &len);
    return webdb::Md5Hex(md5);
  }

 private:
  EVP_MD_CTX* ctx_;
};

// Passes edits on while hashing them (the input digest) and keeping the bottom-k
// sample of page urls by MD5 (a deterministic sample for choosing breakpoints).
class DigestingSink final : public webdb::EditSink {
 public:
  DigestingSink(webdb::EditSink& next, Md5Stream& md5, std::map<webdb::Md5, std::string>* sample)
      : next_(next), md5_(md5), sample_(sample) {}

  Status Add(const webdb::EditView& e) override {
    std::string head = fmt::format("{}:{}:{}:{}:", e.key.size(), e.order, e.kind, e.value.size());
    md5_.Update(head);
    md5_.Update(e.key);
    md5_.Update(e.value);
    if (sample_ != nullptr) Sample(e.key);
    return next_.Add(e);
  }

 private:
  void Sample(std::string_view url) {
    webdb::Md5 h = webdb::Md5Of(url);
    if (sample_->size() >= kUrlSampleSize && !(h < sample_->rbegin()->first)) return;
    sample_->emplace(h, std::string(url));
    if (sample_->size() > kUrlSampleSize) sample_->erase(std::prev(sample_->end()));
  }

  webdb::EditSink& next_;
  Md5Stream& md5_;
  std::map<webdb::Md5, std::string>* sample_;
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
  Status ReadCommitted();
  Result<bool> RestartedAfterCommit(const std::string& digest);
  Result<std::string> LogCalls(webdb::StagePlumbing& plumbing);
  Status Exchanged(DistPlumbing& plumbing, const std::string& work_dir,
                   const std::string& digest);
  Status AgreeOnRound(const std::string& digest, const std::string& work_dir);
  Status SendStageZero(const std::string& digest, const std::string& work_dir);
  Status TakeStageZero(const std::string& in, int from, std::vector<std::string>* urls);
  Status Commit(const webdb::Manifest& section, const std::string& work_dir);
  Status CleanUp();

  const DistConfig& config_;
  const RunOptions& options_;
  nutchfs::NutchFs& fs_;
  const int self_;
  nutchfs::Env& local_ = fs_.local_env();
  std::string section_dir_;
  RoundManifest committed_;
  RoundManifest next_;
  std::map<webdb::Md5, std::string> sample_;
  std::unique_ptr<Exchange> exchange_;
  RoundReport report_;
};

Status Round::ReadCommitted() {
  NUTCHFS_ASSIGN_OR_RETURN(std::string meta, Local(config_.MetaFile("CURRENT")));
  auto current = nutchfs::ReadFileToString(local_, meta);
  if (!current) {
    if (current.error().IsNotFound()) {
      return Status::NotFound("no distributed webdb '" + config_.db() + "' at " +
                              config_.Describe(self_) + ": run distwriter create first");
    }
    return current.error();
  }
  std::string name = *current;
  if (!name.empty() && name.back() == '\n') name.pop_back();
  const std::string path = meta.substr(0, meta.rfind('/') + 1) + name;
  NUTCHFS_ASSIGN_OR_RETURN(std::string text, nutchfs::ReadFileToString(local_, path));
  NUTCHFS_ASSIGN_OR_RETURN(committed_, RoundManifest::Decode(text, path));
  if (committed_.k != config_.k) {
    return Status::InvalidArgument(fmt::format("{}: the db has {} writers, the config {}", path,
                                               committed_.k, config_.k));
  }
  return Status::OK();
}

// Reads every call file through the CallLog into the stage 1 and 3 sorters; returns the
// input digest.
Result<std::string> Round::LogCalls(webdb::StagePlumbing& plumbing) {
  Md5Stream md5;
  md5.Update(fmt::format("webdb-round-inputs k={} writer={}\n", config_.k, self_));
  const bool sample = committed_.breakpoints.empty() && config_.k > 1;
  DigestingSink pages(plumbing.Sink(1), md5, sample ? &sample_ : nullptr);
  DigestingSink links(plumbing.Sink(3), md5, nullptr);
  webdb::CallLog log(pages, links, static_cast<uint64_t>(self_));
  for (const std::string& path : options_.call_files) {
    NUTCHFS_ASSIGN_OR_RETURN(auto reader, webdb::CallFileReader::Open(local_, path));
    while (true) {
      NUTCHFS_ASSIGN_OR_RETURN(auto call, reader->Next());
      if (!call) break;
      Status s = webdb::ApplyCall(log, *call);
      if (!s.ok()) {
        return Err(reader->Placed(s));
      }
    }
  }
  report_.calls = log.num_calls();
  return md5.HexDigest();
}

Result<RoundReport> Round::Run() {
  NUTCHFS_ASSIGN_OR_RETURN(section_dir_, Local(config_.WriterFile(self_, "section")));
  NUTCHFS_ASSIGN_OR_RETURN(std::string lock_path, Local(config_.WriterFile(self_, "LOCK")));
  NUTCHFS_ASSIGN_OR_RETURN(std::string work_dir, Local(config_.WriterFile(self_, "work")));
  NUTCHFS_ASSIGN_OR_RETURN(auto lock,
                           nutchfs::ScopedLock::Acquire(local_, lock_path, config_.Describe(self_)));
  NUTCHFS_RETURN_IF_ERROR(ReadCommitted());
  NUTCHFS_RETURN_IF_ERROR(local_.RemoveDirRecursively(work_dir));
  NUTCHFS_RETURN_IF_ERROR(local_.CreateDirs(work_dir));

  const uint64_t round = committed_.version + 1;
  exchange_ = std::make_unique<Exchange>(fs_, config_, self_, round,
                                         std::chrono::milliseconds(config_.cluster.timeout_ms));
  DistPlumbing plumbing(local_, work_dir, options_.memory_budget, *exchange_, self_, config_.k);
  NUTCHFS_ASSIGN_OR_RETURN(std::string digest, LogCalls(plumbing));
  NUTCHFS_ASSIGN_OR_RETURN(bool restarted, RestartedAfterCommit(digest));
  Status s = restarted ? exchange_->RemoveIncoming() : Exchanged(plumbing, work_dir, digest);
  if (!s.ok()) {
    // So that a retry with other inputs cannot meet this attempt's stage 0 file.
    Status ignored = exchange_->RetractStageZero();
    (void)ignored;  // the round failed already; that error is the one to report
    return Err(s);
  }
  for (int st = 0; st <= kCommitStage; ++st) report_.traffic[st] = exchange_->traffic(st);
  const RoundManifest& result = report_.already_applied ? committed_ : next_;
  if (!report_.already_applied) NUTCHFS_RETURN_IF_ERROR(CleanUp());
  NUTCHFS_RETURN_IF_ERROR(local_.RemoveDirRecursively(work_dir));
  NUTCHFS_RETURN_IF_ERROR(lock->Release());
  report_.version = result.version;
  report_.pages = result.num_pages();
  report_.links = result.num_links();
  return report_;
}

// True when this writer committed the round these very inputs made and was stopped
// before cleaning up after it: its group still holds that round's exchange directory.
Result<bool> Round::RestartedAfterCommit(const std::string& digest) {
  if (committed_.digests[self_] != digest) return false;
  NUTCHFS_ASSIGN_OR_RETURN(
      std::string dir,
      Local(config_.WriterFile(self_,
                               fmt::format("rounds/{}-{}", committed_.version, committed_.token))));
  report_.already_applied = local_.FileExists(dir);
  return report_.already_applied;
}

// Stages 0 to 6, each timed from its start to the start of the next.
Status Round::Exchanged(DistPlumbing& plumbing, const std::string& work_dir,
                        const std::string& digest) {
  auto clock = std::chrono::steady_clock::now();
  int current = 0;
  auto enter = [&](int stage, std::string_view name) {
    const auto now = std::chrono::steady_clock::now();
    report_.stage_seconds[current] += std::chrono::duration<double>(now - clock).count();
    clock = now;
    current = stage;
    Step(name);
  };
  enter(0, "stage 0");
  NUTCHFS_RETURN_IF_ERROR(AgreeOnRound(digest, work_dir));
  if (report_.already_applied) return Status::OK();
  plumbing.set_partition(next_.partition());
  webdb::WriterOptions engine_options{options_.memory_budget, options_.progress,
                                      [&](std::string_view step) { enter(step[6] - '0', step); }};
  webdb::UpdateParams params{section_dir_, next_.version, static_cast<uint64_t>(self_),
                             &engine_options};
  NUTCHFS_ASSIGN_OR_RETURN(webdb::Manifest section,
                           webdb::RunUpdate(local_, committed_.sections[self_], params, plumbing));
  enter(kCommitStage, "commit");
  Status s = Commit(section, work_dir);
  enter(kCommitStage, "done");
  return s;
}

// Stage 0: every writer sends its input digest (and url sample); the token is the MD5
// of all k digests and the breakpoints, if not yet chosen, the quantiles of all samples.
//
// Inputs equal to those of the committed round are ambiguous on their own: this writer
// may be restarted after its commit and clean-up, or a new round may give it the same
// calls (an empty slice twice, say). So it still takes part in stage 0. The round was
// applied already when all k digests are the committed ones, or when no peer turns up
// and its own digest is the committed one (a lone restart after commit).
Status Round::AgreeOnRound(const std::string& digest, const std::string& work_dir) {
  NUTCHFS_RETURN_IF_ERROR(SendStageZero(digest, work_dir));
  next_ = committed_;
  next_.version = committed_.version + 1;
  std::vector<std::string> urls;
  for (int from = 0; from < config_.k; ++from) {
    auto in = exchange_->Receive(0, from);
    if (!in && in.error().IsTimeout() && committed_.digests[self_] == digest) {
      report_.already_applied = true;
      return exchange_->RetractStageZero();
    }
    if (!in) return in.error();
    NUTCHFS_RETURN_IF_ERROR(TakeStageZero(*in, from, &urls));
  }
  if (next_.digests == committed_.digests) {
    report_.already_applied = true;
    return exchange_->RemoveIncoming();  // read by no one else
  }
  Md5Stream token;
  for (const std::string& d : next_.digests) token.Update(d);
  next_.token = token.HexDigest().substr(0, 16);
  exchange_->set_token(next_.token);
  if (next_.breakpoints.empty() && config_.k > 1) {
    NUTCHFS_ASSIGN_OR_RETURN(next_.breakpoints,
                             Partition::ChooseBreakpoints(std::move(urls), config_.k));
  }
  return Status::OK();
}

Status Round::SendStageZero(const std::string& digest, const std::string& work_dir) {
  const std::string path = work_dir + "/stage0.edits";
  StageZero out{digest, {}};
  for (const auto& [hash, url] : sample_) out.urls.push_back(url);
  NUTCHFS_RETURN_IF_ERROR(WriteStageZero(local_, path, out));
  for (int to = 0; to < config_.k; ++to) NUTCHFS_RETURN_IF_ERROR(exchange_->Send(0, to, path));
  return Status::OK();
}

// Takes writer `from`'s digest into next_ and its url sample into urls.
Status Round::TakeStageZero(const std::string& in, int from, std::vector<std::string>* urls) {
  auto got = ReadStageZero(local_, in);
  if (!got) {
    return DiscardIfCorrupt(local_, in,
                            got.error().WithContext("stage 0 file of " + config_.Describe(from)));
  }
  next_.digests[from] = std::move(got->digest);
  urls->insert(urls->end(), std::make_move_iterator(got->urls.begin()),
               std::make_move_iterator(got->urls.end()));
  return Status::OK();
}

// Stage 6: exchange section manifests, then install the round manifest on this machine.
Status Round::Commit(const webdb::Manifest& section, const std::string& work_dir) {
  const std::string path = work_dir + "/section.manifest";
  NUTCHFS_RETURN_IF_ERROR(nutchfs::WriteFileAtomically(local_, path, section.Encode()));
  for (int to = 0; to < config_.k; ++to) {
    NUTCHFS_RETURN_IF_ERROR(exchange_->Send(kCommitStage, to, path));
  }
  for (int from = 0; from < config_.k; ++from) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string in, exchange_->Receive(kCommitStage, from));
    NUTCHFS_ASSIGN_OR_RETURN(std::string text, nutchfs::ReadFileToString(local_, in));
    auto section = webdb::Manifest::Decode(text, in);
    if (!section) return DiscardIfCorrupt(local_, in, section.error());
    next_.sections[from] = std::move(*section);
  }
  NUTCHFS_ASSIGN_OR_RETURN(std::string meta, Local(config_.MetaFile("CURRENT")));
  const std::string meta_dir = meta.substr(0, meta.rfind('/'));
  const std::string name = RoundFileName(next_.version);
  NUTCHFS_RETURN_IF_ERROR(
      nutchfs::WriteFileAtomically(local_, meta_dir + "/" + name, next_.Encode()));
  return nutchfs::WriteFileAtomically(local_, meta, name + "\n");
}

// Keeps the section files of this round and of the previous one (a reader may still be
// reading it), and removes this writer's incoming exchange files.
Status Round::CleanUp() {
  NUTCHFS_RETURN_IF_ERROR(exchange_->RemoveIncoming());
  NUTCHFS_RETURN_IF_ERROR(webdb::RemoveObsoleteFiles(
      local_, section_dir_, {&next_.sections[self_], &committed_.sections[self_]}));
  NUTCHFS_ASSIGN_OR_RETURN(std::string meta, Local(config_.MetaFile("CURRENT")));
  const std::string meta_dir = meta.substr(0, meta.rfind('/'));
  NUTCHFS_ASSIGN_OR_RETURN(auto names, local_.GetChildren(meta_dir));
  for (const std::string& n : names) {
    if (!n.starts_with("ROUND-") || n == RoundFileName(next_.version) ||
        n == RoundFileName(committed_.version) || n.find(".tmp") != std::string::npos) {
      continue;
    }
    Status s = local_.RemoveFile(meta_dir + "/" + n);
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  return Status::OK();
}

}  // namespace

Result<RoundReport> RunRound(const DistConfig& config, const RunOptions& options) {
  if (options.writer < 0 || options.writer >= config.k) {
    return Err(Status::InvalidArgument(fmt::format("writer {} is not in 0..{}", options.writer,
                                                   config.k - 1)));
  }
  NUTCHFS_ASSIGN_OR_RETURN(
      auto fs, nutchfs::NutchFs::Open(config.cluster, config.writer_machines[options.writer]));
  return Round(config, options, *fs).Run();
}

}  // namespace distwriter
