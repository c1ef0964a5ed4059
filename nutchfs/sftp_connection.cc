#include "nutchfs/sftp_connection.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

namespace nutchfs {
namespace {

// The first retry follows at once (a dropped session is usually just that); later
// ones wait 100 ms, 200 ms, ... up to 5 s, giving a restarting server time to come up.
constexpr int kFirstDelayMs = 100;
constexpr int kMaxDelayMs = 5000;

// The servers taken as down (SftpConnection::MarkDown), by connection name: until when,
// and the error that made it so. Shared by every connection of the process.
struct DownServer {
  std::chrono::steady_clock::time_point until;
  Status why;
};
std::mutex down_mu;
std::map<std::string, DownServer>& DownServers() {
  static auto* servers = new std::map<std::string, DownServer>();
  return *servers;
}

}  // namespace

Status SftpConnection::DownNow() const {
  std::lock_guard<std::mutex> lock(down_mu);
  auto it = DownServers().find(name_);
  if (it == DownServers().end()) return Status::OK();
  const auto now = std::chrono::steady_clock::now();
  if (now >= it->second.until) return Status::OK();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(it->second.until - now);
  return it->second.why.WithContext(
      "taken as down for another " + std::to_string(left.count()) +
      " ms (it could not be reached for a whole retry window of " +
      std::to_string(options_.retry_window_ms) + " ms)");
}

void SftpConnection::MarkDown(const Status& why) const {
  std::lock_guard<std::mutex> lock(down_mu);
  DownServers()[name_] = {std::chrono::steady_clock::now() +
                              std::chrono::milliseconds(options_.retry_window_ms),
                          why};
}

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
