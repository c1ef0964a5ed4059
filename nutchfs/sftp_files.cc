#include "nutchfs/sftp_files.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>

namespace nutchfs {
namespace {

// A sequential reader fetches this much at a time, with pipelined requests.
constexpr size_t kReadAhead = 2 << 20;

// A read-only remote handle that follows the connection across reconnects: a read
// that finds its session replaced opens the file again, provided it is still the same
// file (size and mtime as when first opened), so that a file replaced meanwhile is
// never read as a mix of two versions.
// REQUIRES: used only inside SftpConnection calls, which serialize it.
class ReadHandle {
 public:
  explicit ReadHandle(std::string path) : file_{std::string(), std::move(path)} {}

  Status EnsureOpen(SshSession& session) {
    if (open_ && serial_ == session.serial()) return Status::OK();
    NUTCHFS_ASSIGN_OR_RETURN(file_, session.data().OpenFile(file_.path, kSftpRead));
    serial_ = session.serial();
    open_ = true;
    NUTCHFS_ASSIGN_OR_RETURN(SftpFileStat stat, session.data().Stat(file_));
    if (!identity_) {
      identity_ = stat;
    } else if (!(*identity_ == stat)) {
      return Status::IOError(session.name() + ": " + file_.path +
                             " was replaced while the connection was down; read aborted");
    }
    return Status::OK();
  }

  Result<size_t> Read(SshSession& session, uint64_t offset, size_t n, char* dst) {
    NUTCHFS_RETURN_IF_ERROR(EnsureOpen(session));
    return session.data().Read(file_, offset, n, dst);
  }

  // REQUIRES: EnsureOpen succeeded once.
  uint64_t size() const { return identity_->size; }

  // Closes the handle if its session still lives; a lost session took it along.
  void Close(SftpConnection& connection) {
    if (!open_) return;
    open_ = false;
    Status s = connection.Once(
        serial_, file_.path, [&](SshSession& session) { return session.data().CloseFile(file_); });
    (void)s;  // nothing to report from a destructor; the handle dies with the session anyway
  }

  const std::string& path() const { return file_.path; }

 private:
  SftpHandle file_;
  uint64_t serial_ = 0;
  bool open_ = false;
  std::optional<SftpFileStat> identity_;
};

class SftpSequentialFile final : public SequentialFile {
 public:
  SftpSequentialFile(std::shared_ptr<SftpConnection> connection, const std::string& path)
      : connection_(std::move(connection)), handle_(path) {}
  ~SftpSequentialFile() override { handle_.Close(*connection_); }

  Status Open() {
    return connection_->Retry([&](SshSession& s) { return handle_.EnsureOpen(s); });
  }

  Result<std::string_view> Read(size_t n, char* scratch) override {
    size_t got = TakeBuffered(n, scratch);
    if (got == n) return std::string_view(scratch, got);
    if (n - got >= kReadAhead) {
      NUTCHFS_ASSIGN_OR_RETURN(size_t r, Fetch(n - got, scratch + got));
      return std::string_view(scratch, got + r);
    }
    buffer_.resize(kReadAhead);
    NUTCHFS_ASSIGN_OR_RETURN(size_t r, Fetch(kReadAhead, buffer_.data()));
    buffer_.resize(r);
    buffer_pos_ = 0;
    got += TakeBuffered(n - got, scratch + got);
    return std::string_view(scratch, got);
  }

  Status Skip(uint64_t n) override {
    const size_t buffered = buffer_.size() - buffer_pos_;
    if (n <= buffered) {
      buffer_pos_ += n;
      return Status::OK();
    }
    fetch_pos_ += n - buffered;
    buffer_.clear();
    buffer_pos_ = 0;
    return Status::OK();
  }

  const std::string& path() const override { return handle_.path(); }

 private:
  size_t TakeBuffered(size_t n, char* dst) {
    const size_t take = std::min(n, buffer_.size() - buffer_pos_);
    std::memcpy(dst, buffer_.data() + buffer_pos_, take);
    buffer_pos_ += take;
    return take;
  }

  // Reads up to n bytes at fetch_pos_ (fewer only at end of file).
  Result<size_t> Fetch(size_t n, char* dst) {
    NUTCHFS_ASSIGN_OR_RETURN(size_t r, connection_->Retry([&](SshSession& s) {
      return handle_.Read(s, fetch_pos_, n, dst);
    }));
    fetch_pos_ += r;
    return r;
  }

  const std::shared_ptr<SftpConnection> connection_;
  ReadHandle handle_;
  std::string buffer_;
  size_t buffer_pos_ = 0;
  uint64_t fetch_pos_ = 0;  // file offset just past buffer_
};

class SftpRandomAccessFile final : public RandomAccessFile {
 public:
  SftpRandomAccessFile(std::shared_ptr<SftpConnection> connection, const std::string& path)
      : connection_(std::move(connection)), handle_(path) {}
  ~SftpRandomAccessFile() override { handle_.Close(*connection_); }

  Status Open() {
    NUTCHFS_RETURN_IF_ERROR(
        connection_->Retry([&](SshSession& s) { return handle_.EnsureOpen(s); }));
    size_ = handle_.size();
    return Status::OK();
  }

  Result<std::string_view> Read(uint64_t offset, size_t n, char* scratch) const override {
    NUTCHFS_ASSIGN_OR_RETURN(size_t r, connection_->Retry([&](SshSession& s) {
      return handle_.Read(s, offset, n, scratch);
    }));
    return std::string_view(scratch, r);
  }

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return handle_.path(); }

 private:
  const std::shared_ptr<SftpConnection> connection_;
  mutable ReadHandle handle_;  // guarded by the connection's mutex
  uint64_t size_ = 0;
};

// Appends in kMaxWrite requests, keeping up to kWriteDepth of them unanswered.
class SftpWritableFile final : public WritableFile {
 public:
  SftpWritableFile(std::shared_ptr<SftpConnection> connection, SftpHandle file, uint64_t serial)
      : connection_(std::move(connection)), file_(std::move(file)), serial_(serial) {}
  ~SftpWritableFile() override {
    Status s = Close();
    (void)s;  // closing without a sync on destruction, as documented in env.h
  }
  SftpWritableFile(const SftpWritableFile&) = delete;
  SftpWritableFile& operator=(const SftpWritableFile&) = delete;

  Status Append(std::string_view data) override {
    if (!status_.ok()) return status_;
    if (buffer_.size() + data.size() < SftpChannel::kMaxWrite) {
      buffer_.append(data);
      return Status::OK();
    }
    return Run([&](SshSession& s) -> Status {
      const size_t fill = SftpChannel::kMaxWrite - buffer_.size();
      buffer_.append(data.substr(0, fill));
      data.remove_prefix(fill);
      NUTCHFS_RETURN_IF_ERROR(Send(s, buffer_));
      for (; data.size() >= SftpChannel::kMaxWrite; data.remove_prefix(SftpChannel::kMaxWrite)) {
        NUTCHFS_RETURN_IF_ERROR(Send(s, data.substr(0, SftpChannel::kMaxWrite)));
      }
      buffer_.assign(data);
      return Status::OK();
    });
  }

  Status Flush() override {
    if (!status_.ok()) return status_;
    return Run([&](SshSession& s) { return FlushLocked(s); });
  }

  Status Sync() override {
    if (!status_.ok()) return status_;
    return Run([&](SshSession& s) -> Status {
      NUTCHFS_RETURN_IF_ERROR(FlushLocked(s));
      return s.data().Fsync(file_);
    });
  }

  Status Close() override {
    if (closed_) return status_;
    closed_ = true;
    if (!status_.ok()) {
      // Release the server's handle if the session still lives; the error stands.
      Status s = connection_->Once(serial_, file_.path, [&](SshSession& session) -> Status {
        Status drained = DrainLocked(session);
        return session.data().broken() ? drained : session.data().CloseFile(file_);
      });
      (void)s;
      return status_;
    }
    return Run([&](SshSession& s) -> Status {
      Status flushed = FlushLocked(s);
      if (s.data().broken()) return flushed;
      Status closed = s.data().CloseFile(file_);
      return flushed.ok() ? closed : flushed;
    });
  }

  const std::string& path() const override { return file_.path; }

 private:
  // Runs op on the file's session; the first failure sticks.
  template <typename Op>
  Status Run(Op&& op) {
    status_ = connection_->Once(serial_, file_.path, op);
    return status_;
  }

  Status Send(SshSession& s, std::string_view chunk) {
    if (in_flight_.size() >= SftpChannel::kWriteDepth) {
      const uint32_t id = in_flight_.front();
      in_flight_.pop_front();
      NUTCHFS_RETURN_IF_ERROR(s.data().FinishWrite(file_, id));
    }
    NUTCHFS_ASSIGN_OR_RETURN(uint32_t id, s.data().StartWrite(file_, offset_, chunk));
    in_flight_.push_back(id);
    offset_ += chunk.size();
    return Status::OK();
  }

  // Sends the buffer and waits for every outstanding reply.
  Status FlushLocked(SshSession& s) {
    if (!buffer_.empty()) {
      NUTCHFS_RETURN_IF_ERROR(Send(s, buffer_));
      buffer_.clear();
    }
    return DrainLocked(s);
  }

  // Waits for every outstanding reply, even after a failed one, so that none is left
  // behind on a healthy channel; returns the first failure.
  Status DrainLocked(SshSession& s) {
    Status first;
    while (!in_flight_.empty() && !s.data().broken()) {
      Status st = s.data().FinishWrite(file_, in_flight_.front());
      in_flight_.pop_front();
      if (first.ok()) first = st;
    }
    if (first.ok() && s.data().broken()) first = s.data().failure();
    return first;
  }

  const std::shared_ptr<SftpConnection> connection_;
  const SftpHandle file_;
  const uint64_t serial_;
  std::string buffer_;
  std::deque<uint32_t> in_flight_;
  uint64_t offset_ = 0;  // file offset of buffer_'s first byte
  Status status_;
  bool closed_ = false;
};

Result<bool> Exists(SshSession& s, const std::string& path) {
  s.BeginCall();
  sftp_attributes attrs = sftp_stat(s.sftp(), path.c_str());
  if (attrs != nullptr) {
    sftp_attributes_free(attrs);
    return true;
  }
  Status st = s.MetaError("stat", path);
  if (st.IsNotFound()) return false;
  return Err(st);
}

// Opens path with O_CREAT|O_EXCL on session serial; Busy if it exists.
Result<std::unique_ptr<SftpWritableFile>> CreateNew(std::shared_ptr<SftpConnection> connection,
                                                    uint64_t serial, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(
      SftpHandle file, connection->Once(serial, path, [&](SshSession& s) -> Result<SftpHandle> {
        auto opened = s.data().OpenFile(path, kSftpWrite | kSftpCreate | kSftpExclusive);
        if (opened || s.broken()) return opened;
        // SFTP v3 has no "already exists" status: OpenSSH answers a plain failure.
        auto exists = Exists(s, path);
        if (exists && *exists)
          return Err(Status::Busy(connection->name() + ": " + path + " exists"));
        return opened;
      }));
  return std::make_unique<SftpWritableFile>(std::move(connection), std::move(file), serial);
}

}  // namespace

Result<std::unique_ptr<SequentialFile>> NewSftpSequentialFile(
    std::shared_ptr<SftpConnection> connection, const std::string& path) {
  auto file = std::make_unique<SftpSequentialFile>(std::move(connection), path);
  NUTCHFS_RETURN_IF_ERROR(file->Open());
  return file;
}

Result<std::unique_ptr<RandomAccessFile>> NewSftpRandomAccessFile(
    std::shared_ptr<SftpConnection> connection, const std::string& path) {
  auto file = std::make_unique<SftpRandomAccessFile>(std::move(connection), path);
  NUTCHFS_RETURN_IF_ERROR(file->Open());
  return file;
}

Result<std::unique_ptr<WritableFile>> NewSftpWritableFile(
    std::shared_ptr<SftpConnection> connection, const std::string& path) {
  uint64_t serial = 0;
  NUTCHFS_ASSIGN_OR_RETURN(SftpHandle file, connection->Retry([&](SshSession& s) {
    serial = s.serial();
    return s.data().OpenFile(path, kSftpWrite | kSftpCreate | kSftpTruncate);
  }));
  return std::make_unique<SftpWritableFile>(std::move(connection), std::move(file), serial);
}

Status SftpCreateExclusive(std::shared_ptr<SftpConnection> connection, const std::string& path,
                           std::string_view contents) {
  // A cheap round trip first, so that a dead connection is replaced (with retries)
  // before the one request that must not be repeated.
  NUTCHFS_ASSIGN_OR_RETURN(
      uint64_t serial, connection->Retry([&](SshSession& s) -> Result<uint64_t> {
        NUTCHFS_ASSIGN_OR_RETURN(bool exists, Exists(s, path));
        if (exists) return Err(Status::Busy(connection->name() + ": " + path + " exists"));
        return s.serial();
      }));
  NUTCHFS_ASSIGN_OR_RETURN(auto file, CreateNew(connection, serial, path));
  Status s = file->Append(contents);
  if (s.ok()) s = file->Sync();
  if (s.ok()) s = file->Close();
  if (s.ok()) return s;
  file.reset();
  Status removed = connection->Retry([&](SshSession& session) -> Status {
    session.BeginCall();
    if (sftp_unlink(session.sftp(), path.c_str()) == 0) return Status::OK();
    Status st = session.MetaError("remove", path);
    return st.IsNotFound() ? Status::OK() : st;
  });
  return removed.ok()
             ? s
             : s.WithContext("(and removing the partial file failed: " + removed.ToString() + ")");
}

}  // namespace nutchfs
