// The packets themselves are encoded and decoded by nutchfs/sftp_wire.h.
#include "nutchfs/sftp_channel.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <utility>

namespace nutchfs {
namespace {

constexpr uint32_t kVersion = 3;
// Largest reply accepted: a full DATA reply plus headers and a generous status text.
constexpr size_t kMaxReply = SftpChannel::kReadChunk + 4096;

bool IsEof(uint8_t type, const std::string& payload) {
  if (type != kFxpStatus) return false;
  auto status = DecodeSftpStatus(payload);
  return status && status->code == kFxEof;
}

}  // namespace

SftpChannel::SftpChannel(ssh_channel channel, std::string name, int timeout_ms)
    : channel_(channel), name_(std::move(name)), timeout_ms_(timeout_ms) {}

SftpChannel::~SftpChannel() {
  // A broken channel may sit on a dead or hung connection: skip the polite close.
  if (!broken_) (void)ssh_channel_close(channel_);
  ssh_channel_free(channel_);
}

Result<std::unique_ptr<SftpChannel>> SftpChannel::Open(ssh_session session, std::string name,
                                                       int timeout_ms) {
  ssh_channel channel = ssh_channel_new(session);
  if (channel == nullptr) {
    return Err(Status::IOError(name + ": cannot create an SSH channel: " + ssh_get_error(session)));
  }
  if (ssh_channel_open_session(channel) != SSH_OK ||
      ssh_channel_request_subsystem(channel, "sftp") != SSH_OK) {
    Status s =
        Status::IOError(name + ": cannot start the sftp subsystem: " + ssh_get_error(session));
    ssh_channel_free(channel);
    return Err(s);
  }
  std::unique_ptr<SftpChannel> result(new SftpChannel(channel, std::move(name), timeout_ms));
  NUTCHFS_RETURN_IF_ERROR(result->Init());
  return result;
}

Status SftpChannel::Init() {
  BeginSftpPacket(&send_buf_, kFxpInit, kVersion);
  NUTCHFS_RETURN_IF_ERROR(Send(EndSftpPacket(&send_buf_), "sftp init", ""));
  char head[5];
  NUTCHFS_RETURN_IF_ERROR(ReadExactly(head, sizeof(head), "sftp init", ""));
  const uint32_t len = DecodeSftpU32(head);
  if (head[4] != static_cast<char>(kFxpVersion) || len < 5 || len > kMaxReply) {
    return Broken("sftp init", "", "the server did not answer with SSH_FXP_VERSION");
  }
  std::string payload(len - 1, '\0');
  NUTCHFS_RETURN_IF_ERROR(ReadExactly(payload.data(), payload.size(), "sftp init", ""));
  auto version = DecodeSftpVersion(payload);
  if (!version) return Broken("sftp init", "", "malformed SSH_FXP_VERSION reply");
  if (version->version != kVersion) {
    return Broken("sftp init", "", "server does not speak SFTP v3");
  }
  extensions_ = std::move(version->extensions);
  return Status::OK();
}

bool SftpChannel::HasExtension(std::string_view name) const {
  return std::find(extensions_.begin(), extensions_.end(), name) != extensions_.end();
}

Status SftpChannel::Broken(std::string_view what, const std::string& path, std::string_view why) {
  std::string msg = name_ + ": " + std::string(what);
  if (!path.empty()) msg += " " + path;
  broken_ = true;
  broken_status_ = Status::IOError(msg + ": " + std::string(why));
  return broken_status_;
}

Status SftpChannel::Send(std::string_view packet, std::string_view what, const std::string& path) {
  if (broken_) return broken_status_;
  while (!packet.empty()) {
    const auto start = std::chrono::steady_clock::now();
    int w = ssh_channel_write(channel_, packet.data(), static_cast<uint32_t>(packet.size()));
    if (w <= 0) {
      return Broken(
          what, path,
          std::string("connection lost: ") + ssh_get_error(ssh_channel_get_session(channel_)));
    }
    // When the peer stops taking data, libssh queues the bytes after waiting out its
    // timeout and reports success: a write that slow means the link is gone.
    if (std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(timeout_ms_)) {
      return Broken(what, path,
                    "the server accepted no data within " + std::to_string(timeout_ms_) + " ms");
    }
    packet.remove_prefix(static_cast<size_t>(w));
  }
  return Status::OK();
}

Status SftpChannel::ReadExactly(char* dst, size_t n, std::string_view what,
                                const std::string& path) {
  size_t got = 0;
  while (got < n) {
    int r = ssh_channel_read_timeout(channel_, dst + got, static_cast<uint32_t>(n - got), 0,
                                     timeout_ms_);
    if (r > 0) {
      got += static_cast<size_t>(r);
      continue;
    }
    if (r < 0) {
      return Broken(
          what, path,
          std::string("connection lost: ") + ssh_get_error(ssh_channel_get_session(channel_)));
    }
    if (ssh_channel_is_eof(channel_) || !ssh_channel_is_open(channel_)) {
      return Broken(what, path, "the server closed the SFTP channel");
    }
    return Broken(what, path, "no reply within " + std::to_string(timeout_ms_) + " ms");
  }
  return Status::OK();
}

Status SftpChannel::ReadOnePacket(std::string_view what, const std::string& path) {
  char head[kSftpReplyHeaderSize];
  NUTCHFS_RETURN_IF_ERROR(ReadExactly(head, sizeof(head), what, path));
  const auto [len, type, id] = DecodeSftpReplyHeader(head);
  if (len < 5 || len > kMaxReply) {
    return Broken(what, path, "bad packet length " + std::to_string(len));
  }
  if (outstanding_.erase(id) == 0) {
    return Broken(what, path, "reply to unknown request " + std::to_string(id));
  }
  Reply reply;
  reply.type = type;
  const size_t rest = len - 5;
  auto target = read_targets_.find(id);
  if (reply.type == kFxpData && target != read_targets_.end()) {
    char n[4];
    if (rest < 4) return Broken(what, path, "short DATA packet");
    NUTCHFS_RETURN_IF_ERROR(ReadExactly(n, 4, what, path));
    reply.data_len = DecodeSftpU32(n);
    if (reply.data_len != rest - 4 || reply.data_len > target->second.capacity) {
      return Broken(what, path, "DATA reply does not match its request");
    }
    NUTCHFS_RETURN_IF_ERROR(ReadExactly(target->second.dst, reply.data_len, what, path));
  } else {
    reply.payload.resize(rest);
    NUTCHFS_RETURN_IF_ERROR(ReadExactly(reply.payload.data(), rest, what, path));
  }
  if (target != read_targets_.end()) read_targets_.erase(target);
  replies_.emplace(id, std::move(reply));
  return Status::OK();
}

Result<SftpChannel::Reply> SftpChannel::WaitReply(uint32_t id, std::string_view what,
                                                  const std::string& path) {
  if (broken_) return Err(broken_status_);
  auto it = replies_.find(id);
  while (it == replies_.end()) {
    NUTCHFS_RETURN_IF_ERROR(ReadOnePacket(what, path));
    it = replies_.find(id);
  }
  Reply reply = std::move(it->second);
  replies_.erase(it);
  return reply;
}

Status SftpChannel::StatusOf(const Reply& reply, std::string_view what, const std::string& path) {
  if (reply.type != kFxpStatus) {
    return Broken(what, path, "unexpected reply type " + std::to_string(reply.type));
  }
  auto status = DecodeSftpStatus(reply.payload);
  if (!status) return Broken(what, path, "malformed STATUS reply");
  if (status->code == kFxOk) return Status::OK();
  std::string msg = name_ + ": " + std::string(what) + " " + path + ": " + status->message +
                    " (SFTP status " + std::to_string(status->code) + ")";
  return status->code == kFxNoSuchFile ? Status::NotFound(std::move(msg))
                                       : Status::IOError(std::move(msg));
}

Status SftpChannel::Call(std::string packet, uint32_t id, std::string_view what,
                         const std::string& path) {
  outstanding_.insert(id);
  NUTCHFS_RETURN_IF_ERROR(Send(packet, what, path));
  NUTCHFS_ASSIGN_OR_RETURN(Reply reply, WaitReply(id, what, path));
  return StatusOf(reply, what, path);
}

Result<SftpHandle> SftpChannel::OpenFile(const std::string& path, uint32_t flags) {
  const uint32_t id = NextId();
  BeginSftpPacket(&send_buf_, kFxpOpen, id);
  PutSftpString(&send_buf_, path);
  PutSftpU32(&send_buf_, flags);
  PutSftpU32(&send_buf_, 0);  // no attributes: the server's default mode, minus its umask
  outstanding_.insert(id);
  NUTCHFS_RETURN_IF_ERROR(Send(EndSftpPacket(&send_buf_), "open", path));
  NUTCHFS_ASSIGN_OR_RETURN(Reply reply, WaitReply(id, "open", path));
  if (reply.type != kFxpHandle) {
    Status s = StatusOf(reply, "open", path);
    return Err(s.ok() ? Broken("open", path, "STATUS OK instead of a handle") : s);
  }
  auto handle = DecodeSftpHandle(reply.payload);
  if (!handle) return Err(Broken("open", path, "malformed HANDLE reply"));
  return SftpHandle{std::move(*handle), path};
}

Status SftpChannel::CloseFile(const SftpHandle& file) {
  const uint32_t id = NextId();
  BeginSftpPacket(&send_buf_, kFxpClose, id);
  PutSftpString(&send_buf_, file.handle);
  return Call(std::string(EndSftpPacket(&send_buf_)), id, "close", file.path);
}

Result<SftpFileStat> SftpChannel::Stat(const SftpHandle& file) {
  const uint32_t id = NextId();
  BeginSftpPacket(&send_buf_, kFxpFstat, id);
  PutSftpString(&send_buf_, file.handle);
  outstanding_.insert(id);
  NUTCHFS_RETURN_IF_ERROR(Send(EndSftpPacket(&send_buf_), "fstat", file.path));
  NUTCHFS_ASSIGN_OR_RETURN(Reply reply, WaitReply(id, "fstat", file.path));
  if (reply.type != kFxpAttrs) {
    Status s = StatusOf(reply, "fstat", file.path);
    return Err(s.ok() ? Broken("fstat", file.path, "STATUS OK instead of attributes") : s);
  }
  auto stat = DecodeSftpAttrs(reply.payload);
  if (!stat) return Err(Broken("fstat", file.path, "the server sent no file size"));
  return *stat;
}

Status SftpChannel::Fsync(const SftpHandle& file) {
  if (!HasExtension("fsync@openssh.com")) {
    return Status::IOError(name_ + ": fsync " + file.path +
                           ": the server lacks the fsync@openssh.com extension");
  }
  const uint32_t id = NextId();
  BeginSftpPacket(&send_buf_, kFxpExtended, id);
  PutSftpString(&send_buf_, "fsync@openssh.com");
  PutSftpString(&send_buf_, file.handle);
  return Call(std::string(EndSftpPacket(&send_buf_)), id, "fsync", file.path);
}

Status SftpChannel::PosixRename(const std::string& from, const std::string& to) {
  if (!HasExtension("posix-rename@openssh.com")) {
    return Status::IOError(name_ + ": rename " + from + " to " + to +
                           ": the server lacks the posix-rename@openssh.com extension");
  }
  const uint32_t id = NextId();
  BeginSftpPacket(&send_buf_, kFxpExtended, id);
  PutSftpString(&send_buf_, "posix-rename@openssh.com");
  PutSftpString(&send_buf_, from);
  PutSftpString(&send_buf_, to);
  return Call(std::string(EndSftpPacket(&send_buf_)), id, "rename", from + " to " + to);
}

Result<uint32_t> SftpChannel::StartWrite(const SftpHandle& file, uint64_t offset,
                                         std::string_view data) {
  const uint32_t id = NextId();
  BeginSftpPacket(&send_buf_, kFxpWrite, id);
  PutSftpString(&send_buf_, file.handle);
  PutSftpU64(&send_buf_, offset);
  PutSftpString(&send_buf_, data);
  outstanding_.insert(id);
  NUTCHFS_RETURN_IF_ERROR(
      Send(EndSftpPacket(&send_buf_), "write at " + std::to_string(offset) + " of", file.path));
  return id;
}

Status SftpChannel::FinishWrite(const SftpHandle& file, uint32_t id) {
  NUTCHFS_ASSIGN_OR_RETURN(Reply reply, WaitReply(id, "write", file.path));
  return StatusOf(reply, "write", file.path);
}

Result<uint32_t> SftpChannel::StartRead(const SftpHandle& file, uint64_t offset, size_t len,
                                        char* dst) {
  const uint32_t id = NextId();
  BeginSftpPacket(&send_buf_, kFxpRead, id);
  PutSftpString(&send_buf_, file.handle);
  PutSftpU64(&send_buf_, offset);
  PutSftpU32(&send_buf_, static_cast<uint32_t>(len));
  outstanding_.insert(id);
  read_targets_[id] = ReadTarget{dst, len};
  NUTCHFS_RETURN_IF_ERROR(Send(EndSftpPacket(&send_buf_), "read", file.path));
  return id;
}

// Reads [*done, n) with a sliding window of kReadDepth requests: each reply that
// arrives lets one more request go, so the server never waits for the client. Advances
// *done over the bytes that arrived contiguously; stops early at a short read (the
// caller asks again from there), an error, or the end of file (*eof).
Status SftpChannel::ReadWindow(const SftpHandle& file, uint64_t offset, size_t n, char* dst,
                               size_t* done, bool* eof) {
  struct Request {
    uint32_t id;
    size_t len;
  };
  std::deque<Request> window;
  size_t next = *done;
  Status first_error;
  bool stopped = false;
  do {
    while (!stopped && next < n && window.size() < kReadDepth) {
      const size_t len = std::min(kReadChunk, n - next);
      NUTCHFS_ASSIGN_OR_RETURN(uint32_t id, StartRead(file, offset + next, len, dst + next));
      window.push_back(Request{id, len});
      next += len;
    }
    if (window.empty()) break;
    const Request r = window.front();
    window.pop_front();
    // Every reply is collected, even after a short one, so none is left in the stream.
    NUTCHFS_ASSIGN_OR_RETURN(Reply reply, WaitReply(r.id, "read", file.path));
    if (stopped) continue;
    if (reply.type == kFxpData && reply.payload.empty()) {
      *done += reply.data_len;
      stopped = reply.data_len < r.len;
    } else if (IsEof(reply.type, reply.payload)) {
      *eof = stopped = true;
    } else {
      first_error = StatusOf(reply, "read", file.path);
      if (first_error.ok()) first_error = Broken("read", file.path, "unexpected reply");
      stopped = true;
    }
  } while (!window.empty());
  return first_error;
}

Result<size_t> SftpChannel::Read(const SftpHandle& file, uint64_t offset, size_t n, char* dst) {
  if (broken_) return Err(broken_status_);
  size_t done = 0;
  bool eof = false;
  while (done < n && !eof) {
    const size_t before = done;
    NUTCHFS_RETURN_IF_ERROR(ReadWindow(file, offset, n, dst, &done, &eof));
    if (done == before && !eof) {
      return Err(Broken("read", file.path, "the server returned no data and no end of file"));
    }
  }
  return done;
}

}  // namespace nutchfs
