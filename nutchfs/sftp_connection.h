// SftpConnection: the lasting, self-healing link to one SFTP server, shared by an
// SftpEnv and the files it opened (internal to the SFTP Env).
//
// It holds at most one SshSession. Retry() runs a whole operation on it and, when the
// operation failed because the connection did, drops the session, reconnects and runs
// the operation again, with exponential backoff, up to options.max_retries times and
// while it has been failing for less than options.retry_window_ms (an sshd restart or a
// short outage is ridden out; a host that stays down fails within the window). A server
// that could not be reached for a whole window is taken as down, by every connection of
// this process to it, for the next window: operations fail at once, saying so, instead
// of each waiting out a window of its own (a lost replica holder would stall its peers).
// Once() runs an operation at most once, on the session a remote handle belongs to:
// for writes, whose handle dies with the session (the caller starts over instead).
//
// Ownership: shared (shared_ptr) by the Env and its open files. Thread-safe: every
// operation holds the one mutex, so calls on the session are serialized.
#ifndef NUTCHFS_SFTP_CONNECTION_H_
#define NUTCHFS_SFTP_CONNECTION_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "nutchfs/sftp_env.h"
#include "nutchfs/ssh_session.h"
#include "nutchfs/status.h"

namespace nutchfs {

class SftpConnection {
 public:
  // Connects now (retrying network failures like any operation).
  static Result<std::shared_ptr<SftpConnection>> Connect(const SftpOptions& options);
  SftpConnection(const SftpConnection&) = delete;
  SftpConnection& operator=(const SftpConnection&) = delete;

  const std::string& name() const { return name_; }

  // Runs op(SshSession&) -> Status or Result<T>, reconnecting and running it again
  // while it fails because the connection broke. REQUIRES: op is safe to repeat.
  template <typename Op>
  std::invoke_result_t<Op&, SshSession&> Retry(Op&& op);

  // Runs op(SshSession&) once if the live session is number serial; IOError naming
  // path if that session is gone (the connection was lost since).
  template <typename Op>
  std::invoke_result_t<Op&, SshSession&> Once(uint64_t serial, const std::string& path, Op&& op);

 private:
  explicit SftpConnection(const SftpOptions& options);
  // Makes session_ a live session, reconnecting if needed. REQUIRES: mu_ held.
  Status EnsureSessionLocked();
  void SleepBeforeAttempt(int attempt) const;
  // The error to fail with at once while the server is taken as down; OK otherwise.
  Status DownNow() const;
  // Takes the server as down for a window from now, because of `why`.
  void MarkDown(const Status& why) const;
  bool WithinWindow(std::chrono::steady_clock::time_point start) const {
    return std::chrono::steady_clock::now() - start <
           std::chrono::milliseconds(options_.retry_window_ms);
  }

  static bool Succeeded(const Status& s) { return s.ok(); }
  template <typename T>
  static bool Succeeded(const Result<T>& r) {
    return r.has_value();
  }
  static Status ErrorOf(const Status& s) { return s; }
  template <typename T>
  static Status ErrorOf(const Result<T>& r) {
    return r.error();
  }

  const SftpOptions options_;
  const std::string name_;
  std::mutex mu_;
  std::unique_ptr<SshSession> session_;  // guarded by mu_
  uint64_t next_serial_ = 1;             // guarded by mu_
};

template <typename Op>
std::invoke_result_t<Op&, SshSession&> SftpConnection::Retry(Op&& op) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Status down = DownNow(); !down.ok()) return Err(down);
  Status last;
  const auto start = std::chrono::steady_clock::now();
  int attempt = 0;
  for (; attempt <= options_.max_retries && (attempt == 0 || WithinWindow(start)); ++attempt) {
    SleepBeforeAttempt(attempt);
    Status live = EnsureSessionLocked();
    if (!live.ok()) {
      if (!live.IsIOError()) return Err(live);  // refused: retrying cannot help
      last = live;
      continue;
    }
    auto result = op(*session_);
    if (Succeeded(result) || !session_->broken()) return result;
    last = ErrorOf(result);
  }
  if (!WithinWindow(start) && options_.retry_window_ms > 0) MarkDown(last);
  return Err(last.WithContext("gave up after " + std::to_string(attempt) + " attempts"));
}

template <typename Op>
std::invoke_result_t<Op&, SshSession&> SftpConnection::Once(uint64_t serial,
                                                            const std::string& path, Op&& op) {
  std::lock_guard<std::mutex> lock(mu_);
  if (session_ == nullptr || session_->serial() != serial || session_->broken()) {
    return Err(
        Status::IOError(name_ + ": " + path + ": the connection this file was opened on was lost"));
  }
  return op(*session_);
}

}  // namespace nutchfs

#endif  // NUTCHFS_SFTP_CONNECTION_H_
