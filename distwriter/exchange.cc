#include "distwriter/exchange.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <cstdio>

#include "distwriter/round_store.h"

namespace distwriter {

Exchange::Exchange(nutchfs::NutchFs& fs, const DistConfig& config, int self, uint64_t round,
                   uint64_t epoch, std::chrono::milliseconds timeout)
    : fs_(fs),
      config_(config),
      self_(self),
      round_(round),
      epoch_(epoch),
      timeout_(timeout),
      lease_(config.cluster.lock_lease_ms),
      peers_(static_cast<size_t>(config.k)) {}

std::string Exchange::StageDir(int stage) const {
  if (stage == 0) return fmt::format("rounds/{}/s0", round_);
  return fmt::format("rounds/{}-{}/s{}", round_, token_, stage);
}

nutchfs::NutchFile Exchange::FileFor(int stage, int from, int to) const {
  return config_.WriterFile(to, fmt::format("{}/from-{}.edits", StageDir(stage), from));
}

ExchangeId Exchange::Id(int stage, int from, int to) const {
  return ExchangeId{config_.db(), round_, stage == 0 ? "" : token_, stage, from, to,
                    from == self_ ? epoch_ : 0};
}

Result<std::unique_ptr<webdb::EditFileWriter>> Exchange::Create(const std::string& local_path,
                                                                int stage, int to, bool sorted) {
  return CreateExchangeFile(fs_.local_env(), local_path, Id(stage, self_, to), sorted);
}

Result<std::unique_ptr<webdb::EditIterator>> Exchange::Open(int stage, int from,
                                                            size_t buffer_size, uint64_t* count) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string path, Receive(stage, from));
  return OpenFile(path, stage, from, self_, buffer_size, count);
}

Result<std::unique_ptr<webdb::EditIterator>> Exchange::OpenFile(const std::string& local_path,
                                                                int stage, int from, int to,
                                                                size_t buffer_size,
                                                                uint64_t* count) {
  return OpenExchangeFile(fs_.local_env(), local_path, Id(stage, from, to),
                          config_.Describe(from), buffer_size, count);
}

Status Exchange::Send(int stage, int to, const std::string& local_path) {
  auto size = fs_.local_env().GetFileSize(local_path);
  Status sent = size ? fs_.Move(local_path, FileFor(stage, self_, to)) : size.error();
  if (!sent.ok()) {
    return sent.WithContext(
        fmt::format("writer {}: stage {}: sending to {}", self_, stage, config_.Describe(to)));
  }
  Traffic(stage).bytes_sent += *size;
  Traffic(stage).files_sent += 1;
  return Status::OK();
}

nutchfs::NutchFile Exchange::FailureDir(int writer) const {
  return config_.WriterFile(writer, fmt::format("rounds/{}/failed", round_));
}

Status Exchange::WatchLease(int stage, int from) {
  PeerLease& p = peers_[from];
  const auto now = Clock::now();
  auto record = fs_.ReadLease(config_.WriterFile(from, "LOCK"));
  const bool changed = record ? (p.unreachable || record->has_value() != p.record.has_value() ||
                                 (p.record && (**record).renewals != p.record->renewals) ||
                                 (p.record && (**record).epoch != p.record->epoch) ||
                                 (p.record && (**record).released != p.record->released))
                              : !p.unreachable;
  if (p.read == Clock::time_point{} || changed) p.since = now;
  p.read = now;
  if (record) {
    p.unreachable.reset();
    p.record = std::move(*record);
  } else {
    p.unreachable = record.error();
  }
  const auto idle = std::chrono::duration_cast<std::chrono::milliseconds>(now - p.since);
  if (idle < 2 * lease_) return Status::OK();
  const std::string where = fmt::format("writer {}: round {} stage {}", self_, round_, stage);
  if (p.unreachable) {
    return Status::IOError(fmt::format(
        "{}: {}: its group cannot be reached for {} ms (lease {} ms): {}", where,
        config_.Describe(from), idle.count(), lease_.count(), p.unreachable->ToString()));
  }
  if (!p.record || p.record->released) return Status::OK();  // not started, or ended
  return Status::IOError(fmt::format(
      "{}: writer {} (machine {}) lost its lease: epoch {}, {}, not renewed for {} ms (lease {} "
      "ms) and not taken over",
      where, from, p.record->machine, p.record->epoch, nutchfs::DescribeOwner(*p.record),
      idle.count(), lease_.count()));
}

Status Exchange::Meanwhile(int stage, int from, const nutchfs::NutchFile& file,
                           Clock::time_point started) {
  NUTCHFS_RETURN_IF_ERROR(CheckStop());
  const auto now = Clock::now();
  if (now - peers_[from].read < lease_ / 2) return Status::OK();
  NUTCHFS_RETURN_IF_ERROR(WatchLease(stage, from));
  if (now - started < lease_) return Status::OK();
  // A machine that was out of reach when the file was sent finds it at another replica.
  NUTCHFS_ASSIGN_OR_RETURN(std::string here, fs_.LocalPath(file));
  auto got = fs_.Get(file, here);
  if (!got && !got.error().IsNotFound()) {
    spdlog::warn("writer {}: looking for {} at the other machines of its group: {}", self_,
                 file.ToString(), got.error().ToString());
  }
  return Status::OK();
}

Result<std::string> Exchange::Receive(int stage, int from) {
  const nutchfs::NutchFile file = FileFor(stage, from, self_);
  const std::string where = fmt::format("writer {}: round {} stage {}", self_, round_, stage);
  const auto start = Clock::now();
  auto arrived = fs_.WaitForUnless(
      file, {FailureDir(self_), config_.MetaFile(RoundFileName(round_))}, config_.Describe(from),
      timeout_, [&] { return Meanwhile(stage, from, file, start); });
  Traffic(stage).wait_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  if (Status stopped = CheckStop(); !stopped.ok()) return Err(stopped);
  if (!arrived) return Err(arrived.error().WithContext(where));
  if (!arrived->has_value()) return fs_.LocalPath(file);
  const nutchfs::NutchFile& found = **arrived;
  if (found.group == kMetaGroup) {
    saw_decision_ = true;
    return Err(Status::IOError(where + ": round " + std::to_string(round_) +
                               " was decided by a peer meanwhile"));
  }
  saw_peer_failure_ = true;
  // "rounds/<N>/failed/from-<j>"
  int peer = -1;
  const std::string base(found.BaseName());
  if (std::sscanf(base.c_str(), "from-%d", &peer) != 1) peer = -1;
  std::string why = "(no reason given)";
  auto path = fs_.LocalPath(found);
  if (path) {
    auto text = nutchfs::ReadFileToString(fs_.local_env(), *path);
    if (text) why = text->substr(0, text->find('\n'));
  }
  const std::string who = peer >= 0 && peer < config_.k ? config_.Describe(peer) : base;
  return Err(Status::IOError(where + ": " + who + " failed: " + why));
}

Status Exchange::CheckStop() const {
  const int signal = stop_ != nullptr ? stop_->load() : 0;
  if (signal == 0) return Status::OK();
  const char* name = ::sigabbrev_np(signal);
  return Status::IOError(fmt::format("writer {}: round {}: stopped by signal {} (SIG{})", self_,
                                     round_, signal, name != nullptr ? name : "?"));
}

Result<std::optional<std::string>> Exchange::Arrived(int stage, int from) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string path, fs_.LocalPath(FileFor(stage, from, self_)));
  if (!fs_.local_env().FileExists(path)) return std::optional<std::string>();
  return std::optional<std::string>(path);
}

StageTraffic& Exchange::Traffic(int stage) {
  if (static_cast<size_t>(stage) >= traffic_.size()) traffic_.resize(stage + 1);
  return traffic_[stage];
}

Status Exchange::Fetch(int stage, int from, int at, const std::string& local_path) {
  auto got = fs_.Get(FileFor(stage, from, at), local_path);
  return got ? Status::OK() : got.error();
}

void Exchange::PublishFailure(const Status& why, const std::string& work_dir) {
  const std::string path = work_dir + "/failed";
  std::string line = fmt::format("(epoch {}) {}", epoch_, why.ToString().substr(0, 1000));
  std::replace(line.begin(), line.end(), '\n', ' ');
  Status s = nutchfs::WriteFileAtomically(fs_.local_env(), path, line + "\n");
  for (int to = 0; s.ok() && to < config_.k; ++to) {
    if (to == self_) continue;
    auto put = fs_.Put(path, config_.WriterFile(to, FailureDir(to).name + "/from-" +
                                                        std::to_string(self_)));
    if (!put) spdlog::warn("writer {}: telling {} of the failure: {}", self_,
                           config_.Describe(to), put.error().ToString());
  }
  Status removed = fs_.local_env().RemoveFile(path);
  (void)removed;  // the work directory is removed as a whole too
}

Status Exchange::ClearFailures() { return fs_.DeleteDir(FailureDir(self_)); }

Result<std::vector<int>> Exchange::FailedPeers() {
  const nutchfs::NutchFile dir = FailureDir(self_);
  auto names = fs_.List(dir.db, dir.group, dir.name);
  if (!names && names.error().IsNotFound()) return std::vector<int>();
  if (!names) return Err(names.error());
  std::vector<int> peers;
  for (const std::string& name : *names) {
    int peer = -1;
    if (std::sscanf(name.c_str() + name.rfind('/') + 1, "from-%d", &peer) == 1 && peer >= 0 &&
        peer < config_.k) {
      peers.push_back(peer);
    }
  }
  return peers;
}

Status Exchange::RemoveIncoming() {
  // The group is on this machine: its listing shows the round directories themselves,
  // empty ones too (those of an attempt whose stage 0 files were retracted).
  NUTCHFS_ASSIGN_OR_RETURN(std::string rounds, fs_.LocalPath(config_.WriterFile(self_, "rounds")));
  auto names = fs_.local_env().GetChildren(rounds);
  if (!names) return names.error().IsNotFound() ? Status::OK() : names.error();
  for (const std::string& dir : *names) {
    // "<N>" or "<N>-<token>": remove whole round directories up to this round.
    uint64_t n = 0;
    if (std::sscanf(dir.c_str(), "%lu", &n) != 1 || n > round_) continue;
    NUTCHFS_RETURN_IF_ERROR(fs_.DeleteDir(config_.WriterFile(self_, "rounds/" + dir)));
  }
  return Status::OK();
}

Status Exchange::RetractStageZero() {
  for (int to = 0; to < config_.k; ++to) {
    Status s = fs_.Delete(FileFor(0, self_, to));
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  return Status::OK();
}

}  // namespace distwriter
