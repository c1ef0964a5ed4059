// Exchange: the file traffic of one writer in one round. Every file is named by round,
// token, stage and sender (docs/DISTRIBUTED.md, "Files"), carries the same identity and
// its receiver inside (exchange_file.h), and travels through NutchFS: Send moves a
// finished, synced local file into the receiver's share group (NutchFs::Move: renamed
// where the receiver's root is on this machine's file system, else copied),
// Receive waits for a peer's file to appear in this writer's group, Open also opens it,
// refusing a file that is not what its name says. Stage 0 files carry no token (the
// token is made from them). Every file carries the sender's lease epoch; Receive refuses
// a late one and watches the sender's lease while it waits (docs/DISTRIBUTED.md, "Leases
// and fencing"). Keeps per-stage byte and wait-time totals for the launch report. Not
// thread-safe.
#ifndef DISTWRITER_EXCHANGE_H_
#define DISTWRITER_EXCHANGE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/exchange_file.h"
#include "nutchfs/nutchfs.h"

namespace distwriter {

constexpr int kCommitStage = 6;  // section manifests; stages 1..5 carry edits
// A rank round's exchanges (docs/DISTRIBUTED.md, "Rank rounds") are numbered after it.

struct StageTraffic {
  uint64_t bytes_sent = 0;
  uint64_t files_sent = 0;
  double wait_seconds = 0;
};

class Exchange {
 public:
  // epoch: this writer's lease epoch, carried by every file it sends.
  Exchange(nutchfs::NutchFs& fs, const DistConfig& config, int self, uint64_t round,
           uint64_t epoch, std::chrono::milliseconds timeout);

  void set_token(std::string token) { token_ = std::move(token); }
  // Where the writer's process is told to stop: a signal number once it is (0 until
  // then). Not owned; null: never.
  void set_stop(const std::atomic<int>* stop) { stop_ = stop; }
  // IOError "writer i: round N: stopped by signal S (SIGNAME)" once the process is told
  // to stop, else OK: checked by every wait (Receive) and at every stage's start.
  Status CheckStop() const;
  const std::string& token() const { return token_; }

  // The identity of the stage file from writer `from` to writer `to`.
  ExchangeId Id(int stage, int from, int to) const;
  // Creates local_path, the stage file from this writer to writer `to`.
  Result<std::unique_ptr<webdb::EditFileWriter>> Create(const std::string& local_path, int stage,
                                                        int to, bool sorted);
  // Publishes local_path (synced by its writer) as the stage file from this writer to
  // writer `to`, and takes it: local_path is gone afterwards.
  Status Send(int stage, int to, const std::string& local_path);
  // Receive, then OpenFile.
  Result<std::unique_ptr<webdb::EditIterator>> Open(int stage, int from,
                                                    size_t buffer_size = webdb::kEditReadBufferSize,
                                                    uint64_t* count = nullptr);
  // Opens the stage file from writer `from` to writer `to` found at local_path
  // (OpenExchangeFile: any other file there is refused and removed; *count, if given, gets
  // the edits its footer claims).
  Result<std::unique_ptr<webdb::EditIterator>> OpenFile(
      const std::string& local_path, int stage, int from, int to,
      size_t buffer_size = webdb::kEditReadBufferSize, uint64_t* count = nullptr);
  // Waits for the stage file from writer `from`; returns its path on this machine.
  // Gives up (IOError) as soon as a peer's failure marker for this round is in this
  // writer's group (then saw_peer_failure()), or this round is decided (meta/ROUND-<N>
  // on this machine; then saw_decision()), or the sender's lease has been held without a
  // renewal for two leases (or its group out of reach that long). A file of stages 1..6
  // with an epoch lower than one taken from the same sender is waited past (left in
  // place: the sender's successor publishes its own at the same path).
  // After a lease it also looks for the file at the other machines of this writer's
  // group, and copies it here (a machine that was out of reach missed it).
  Result<std::string> Receive(int stage, int from);
  // The stage file from writer `from` if it is in this writer's group now (no wait).
  Result<std::optional<std::string>> Arrived(int stage, int from);
  // The stage file from writer `from` as found in writer `at`'s group, copied to
  // local_path; NotFound if it is not there.
  Status Fetch(int stage, int from, int at, const std::string& local_path);
  bool saw_decision() const { return saw_decision_; }
  bool saw_peer_failure() const { return saw_peer_failure_; }
  uint64_t round() const { return round_; }

  // Publishes this writer's failure marker for this round, saying why, into every
  // other writer's group; best effort (it is already failing). work_dir holds the
  // local copy while it is sent.
  void PublishFailure(const Status& why, const std::string& work_dir);
  // Removes the failure markers of this round in this writer's group (left by an
  // earlier attempt).
  Status ClearFailures();
  // The writers whose failure marker for this round is in this writer's group.
  Result<std::vector<int>> FailedPeers();
  // Removes this writer's incoming files of this round (and of older rounds).
  Status RemoveIncoming();
  // Removes the stage 0 files this writer sent (after a failed round, so that a retry
  // with other inputs cannot meet them).
  Status RetractStageZero();

  // Bytes sent in every stage so far.
  uint64_t bytes_sent() const {
    uint64_t n = 0;
    for (const StageTraffic& t : traffic_) n += t.bytes_sent;
    return n;
  }
  // Every stage's totals so far (stages not reached: zeros).
  StageTraffic traffic(int stage) const {
    return static_cast<size_t>(stage) < traffic_.size() ? traffic_[stage] : StageTraffic{};
  }

 private:
  using Clock = std::chrono::steady_clock;
  // Writer j's lease as last read, and since when it has not changed.
  struct PeerLease {
    std::optional<nutchfs::LockOwner> record;
    std::optional<Status> unreachable;  // the last read failed so
    Clock::time_point since;
    Clock::time_point read{};  // when it was last read; {} never
  };

  std::string StageDir(int stage) const;
  nutchfs::NutchFile FailureDir(int writer) const;
  nutchfs::NutchFile FileFor(int stage, int from, int to) const;
  // Called between the polls of a wait for `file` from writer `from` begun at `started`.
  Status Meanwhile(int stage, int from, const nutchfs::NutchFile& file, Clock::time_point started);
  // Fails when writer from's lease is held unrenewed, or out of reach, for two leases.
  Status WatchLease(int stage, int from);

  nutchfs::NutchFs& fs_;
  const DistConfig& config_;
  const int self_;
  const uint64_t round_;
  const uint64_t epoch_;
  const std::chrono::milliseconds timeout_;
  const std::chrono::milliseconds lease_;
  std::vector<PeerLease> peers_;
  std::string token_;
  const std::atomic<int>* stop_ = nullptr;
  bool saw_decision_ = false;
  bool saw_peer_failure_ = false;
  StageTraffic& Traffic(int stage);

  std::vector<StageTraffic> traffic_;  // by stage
};

}  // namespace distwriter

#endif  // DISTWRITER_EXCHANGE_H_
