#include "nutchfs/sftp_connection.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace nutchfs {
namespace {

// The first retry follows at once (a dropped session is usually just that); later
// ones wait 100 ms, 200 ms, ... up to 5 s, giving a restarting server time to come up.
constexpr int kFirstDelayMs = 100;
constexpr int kMaxDelayMs = 5000;

}  // namespace

SftpConnection::SftpConnection(const SftpOptions& options)
    : options_(options), name_(SshSession::NameOf(options)) {}

Result<std::shared_ptr<SftpConnection>> SftpConnection::Connect(const SftpOptions& options) {
  std::shared_ptr<SftpConnection> connection(new SftpConnection(options));
  NUTCHFS_RETURN_IF_ERROR(connection->Retry([](SshSession&) { return Status::OK(); }));
  return connection;
}

Status SftpConnection::EnsureSessionLocked() {
  if (session_ != nullptr && !session_->broken()) return Status::OK();
  if (session_ != nullptr) {
    spdlog::info("{}: connection lost; reconnecting", name_);
    session_.reset();
  }
  NUTCHFS_ASSIGN_OR_RETURN(session_, SshSession::Connect(options_, next_serial_++));
  return Status::OK();
}

void SftpConnection::SleepBeforeAttempt(int attempt) const {
  if (attempt < 2) return;
  const int delay = std::min(kMaxDelayMs, kFirstDelayMs << std::min(attempt - 2, 10));
  std::this_thread::sleep_for(std::chrono::milliseconds(delay));
}

}  // namespace nutchfs
