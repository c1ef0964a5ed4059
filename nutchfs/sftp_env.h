// An Env whose files live on another machine, reached over SSH with libssh's SFTP.
//
// One SftpEnv keeps one authenticated SSH session (key login only) for its whole life.
// The server's host key must match the known_hosts file unless the options say
// otherwise. Paths are absolute paths on the remote machine. Whole idempotent
// operations are retried with backoff on transient network errors; the session is
// re-established when it drops. Thread-safe: calls are serialized on the session.
#ifndef NUTCHFS_SFTP_ENV_H_
#define NUTCHFS_SFTP_ENV_H_

#include <memory>
#include <string>

#include "nutchfs/env.h"

namespace nutchfs {

struct SftpOptions {
  std::string user;  // empty: the current user
  std::string host;
  int port = 22;
  std::string identity_file;     // private key; empty: libssh's defaults (~/.ssh)
  std::string known_hosts_file;  // empty: ~/.ssh/known_hosts
  // Accept a host key that known_hosts does not list (never a changed one).
  bool accept_unknown_host_key = false;
  int connect_timeout_ms = 10000;
  // A reply slower than this drops the connection (then retried like any network error).
  int io_timeout_ms = 30000;
  // Per operation, with exponential backoff (100 ms doubling to 5 s), and none started
  // once the operation has been failing for retry_window_ms.
  int max_retries = 10;
  int retry_window_ms = 30000;
};

// Connects and authenticates now; fails with a message naming user@host:port.
Result<std::unique_ptr<Env>> NewSftpEnv(const SftpOptions& options);

}  // namespace nutchfs

#endif  // NUTCHFS_SFTP_ENV_H_
