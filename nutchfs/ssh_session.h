// SshSession: one authenticated SSH connection to an SFTP server (internal to the
// SFTP Env). Connecting checks the server's host key against known_hosts (an unknown
// key only with the opt-in, a changed key never) and logs in with a key, never a
// password. The session carries two SFTP channels: libssh's, for metadata (stat,
// list, mkdir, unlink, rmdir), and an SftpChannel for file contents and renames.
//
// Once a call fails because the connection did (socket error, timeout, server gone),
// broken() is true for good and the owner replaces the session.
//
// Ownership: owns the libssh session and both channels. Not thread-safe: the owner
// (SftpConnection) serializes calls.
#ifndef NUTCHFS_SSH_SESSION_H_
#define NUTCHFS_SSH_SESSION_H_

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "nutchfs/sftp_channel.h"
#include "nutchfs/sftp_env.h"
#include "nutchfs/status.h"

namespace nutchfs {

class SshSession {
 public:
  // "user@host:port", with the current user when options.user is empty.
  static std::string NameOf(const SftpOptions& options);

  // Connects, verifies the host key and authenticates. Fails with IOError when the
  // network or server failed (worth retrying), Refused when the server was refused
  // (host key) or refused us (authentication), InvalidArgument for a bad option or an
  // unreadable private key: retrying cannot help those.
  // serial numbers sessions, so that remote handles can tell which one they belong to.
  static Result<std::unique_ptr<SshSession>> Connect(const SftpOptions& options, uint64_t serial);
  ~SshSession();
  SshSession(const SshSession&) = delete;
  SshSession& operator=(const SshSession&) = delete;

  const std::string& name() const { return name_; }
  uint64_t serial() const { return serial_; }
  bool broken() const { return broken_ || (data_ != nullptr && data_->broken()); }

  SftpChannel& data() { return *data_; }
  // libssh's SFTP session. Call BeginCall() before each use and MetaError() after a
  // failure.
  sftp_session sftp() { return sftp_; }
  void BeginCall();
  // The Status for a failed libssh SFTP call: NotFound for a missing file, IOError
  // otherwise; marks the session broken if the connection failed.
  Status MetaError(std::string_view op, const std::string& path);

 private:
  SshSession(std::string name, uint64_t serial, ssh_session ssh);
  Status SetOptions(const SftpOptions& options);
  Status VerifyHostKey(const SftpOptions& options);
  Status Authenticate(const SftpOptions& options);
  Status OpenChannels(const SftpOptions& options);
  Status Fail(std::string_view what, bool transient);

  const std::string name_;
  const uint64_t serial_;
  ssh_session ssh_;
  sftp_session sftp_ = nullptr;
  std::unique_ptr<SftpChannel> data_;
  bool broken_ = false;
};

}  // namespace nutchfs

#endif  // NUTCHFS_SSH_SESSION_H_
