// SftpChannel: a small SFTP version 3 client on its own SSH channel, carrying file
// contents for the SFTP Env (internal to nutchfs/sftp_*.cc).
//
// Why not libssh's sftp_read/sftp_write: libssh 0.10 waits for the reply to every
// write before it sends the next, so a stream costs one round trip (and, on a busy
// machine, one scheduler wake-up on each side) per chunk. This client keeps several
// requests outstanding, as OpenSSH's sftp and scp do. It also speaks
// posix-rename@openssh.com (an atomic rename that replaces the target), which
// libssh 0.10's sftp_rename does not use: plain SFTP rename fails on an existing target.
//
// Replies are matched to requests by id, so requests of several open files may be
// outstanding together. Any transport or protocol failure marks the channel broken;
// every later call then fails at once and the owner must reconnect. Errors name
// user@host:port (the name given to Open) and the remote path.
//
// Ownership: the channel lives inside the ssh_session passed to Open and must be
// destroyed before it. Not thread-safe: the owner serializes calls.
#ifndef NUTCHFS_SFTP_CHANNEL_H_
#define NUTCHFS_SFTP_CHANNEL_H_

#include <libssh/libssh.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "nutchfs/sftp_wire.h"
#include "nutchfs/status.h"

namespace nutchfs {

// SFTP v3 open flags (draft-ietf-secsh-filexfer-02, section 6.3).
inline constexpr uint32_t kSftpRead = 0x01;
inline constexpr uint32_t kSftpWrite = 0x02;
inline constexpr uint32_t kSftpCreate = 0x08;
inline constexpr uint32_t kSftpTruncate = 0x10;
inline constexpr uint32_t kSftpExclusive = 0x20;

// An open remote file: the server's handle and the path, for messages.
struct SftpHandle {
  std::string handle;
  std::string path;
};

class SftpChannel {
 public:
  // Bytes per write request; OpenSSH refuses packets over 256 KiB.
  static constexpr size_t kMaxWrite = 128 << 10;
  // Write requests a writer keeps unanswered: 1.5 MiB, inside the 2 MiB window that
  // OpenSSH's server opens for a session channel.
  static constexpr size_t kWriteDepth = 12;
  // Bytes per read request.
  static constexpr size_t kReadChunk = 128 << 10;
  // Read requests kept outstanding: 512 KiB, under the 640 KB of unread data at which
  // libssh reopens its receive window, so the server never stalls on flow control and
  // libssh's channel buffer stays small (deeper pipelines measured 30% more CPU).
  static constexpr size_t kReadDepth = 4;

  // Starts the "sftp" subsystem on a new channel of session and negotiates version 3.
  // A reply slower than timeout_ms breaks the channel.
  static Result<std::unique_ptr<SftpChannel>> Open(ssh_session session, std::string name,
                                                   int timeout_ms);
  ~SftpChannel();
  SftpChannel(const SftpChannel&) = delete;
  SftpChannel& operator=(const SftpChannel&) = delete;

  bool broken() const { return broken_; }
  // Why the channel broke; OK while it is not broken.
  const Status& failure() const { return broken_status_; }
  bool HasExtension(std::string_view name) const;

  // NotFound if a file opened without kSftpCreate does not exist.
  Result<SftpHandle> OpenFile(const std::string& path, uint32_t flags);
  Status CloseFile(const SftpHandle& file);
  Result<SftpFileStat> Stat(const SftpHandle& file);
  // fsync@openssh.com; IOError if the server lacks it.
  Status Fsync(const SftpHandle& file);
  // posix-rename@openssh.com: atomically replaces to.
  Status PosixRename(const std::string& from, const std::string& to);

  // Sends a write request without waiting for its reply; returns the request id.
  // REQUIRES: data.size() <= kMaxWrite.
  Result<uint32_t> StartWrite(const SftpHandle& file, uint64_t offset, std::string_view data);
  // Waits for the reply to a request made by StartWrite.
  Status FinishWrite(const SftpHandle& file, uint32_t id);

  // Reads up to n bytes at offset into dst with pipelined requests; fewer only at end
  // of file. REQUIRES: dst holds n bytes.
  Result<size_t> Read(const SftpHandle& file, uint64_t offset, size_t n, char* dst);

 private:
  struct Reply {
    uint8_t type = 0;
    std::string payload;  // after the id; empty for DATA read straight into a target
    size_t data_len = 0;  // for DATA read into a target
  };
  struct ReadTarget {
    char* dst;
    size_t capacity;
  };

  SftpChannel(ssh_channel channel, std::string name, int timeout_ms);
  Status Init();
  uint32_t NextId() { return next_id_++; }

  Status Send(std::string_view packet, std::string_view what, const std::string& path);
  Status ReadExactly(char* dst, size_t n, std::string_view what, const std::string& path);
  // Reads the next reply, whichever request it answers, and files it under its id.
  Status ReadOnePacket(std::string_view what, const std::string& path);
  Result<Reply> WaitReply(uint32_t id, std::string_view what, const std::string& path);
  // Sends a request whose reply is a STATUS, and waits for it.
  Status Call(std::string packet, uint32_t id, std::string_view what, const std::string& path);
  Status StatusOf(const Reply& reply, std::string_view what, const std::string& path);
  Status Broken(std::string_view what, const std::string& path, std::string_view why);
  Result<uint32_t> StartRead(const SftpHandle& file, uint64_t offset, size_t len, char* dst);
  Status ReadWindow(const SftpHandle& file, uint64_t offset, size_t n, char* dst, size_t* done,
                    bool* eof);

  ssh_channel channel_;
  const std::string name_;
  const int timeout_ms_;
  bool broken_ = false;
  Status broken_status_;
  uint32_t next_id_ = 1;
  std::vector<std::string> extensions_;
  std::unordered_set<uint32_t> outstanding_;
  std::unordered_map<uint32_t, Reply> replies_;
  std::unordered_map<uint32_t, ReadTarget> read_targets_;
  std::string send_buf_;
};

}  // namespace nutchfs

#endif  // NUTCHFS_SFTP_CHANNEL_H_
