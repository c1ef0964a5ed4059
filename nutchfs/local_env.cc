// The POSIX Env. Writes are buffered in user space and handed to the kernel in large
// writes; sequential reads ask the kernel for read-ahead.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nutchfs/env.h"
#include "nutchfs/publish.h"

namespace nutchfs {
namespace {

constexpr size_t kWriteBuffer = 1 << 20;
constexpr int kPipeBuffer = 1 << 20;  // Linux's default cap (/proc/sys/fs/pipe-max-size)

// A pipe read from gets a 1 MiB buffer instead of 64 KiB, so that its writer and its
// reader take turns sixteen times less often (a call stream piped into `webdb apply -`
// or `distwriter launch -`). Best effort: a pipe that keeps its buffer still works.
void WidenPipe(int fd) {
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) ::fcntl(fd, F_SETPIPE_SZ, kPipeBuffer);
}

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixSequentialFile() override { ::close(fd_); }
  PosixSequentialFile(const PosixSequentialFile&) = delete;
  PosixSequentialFile& operator=(const PosixSequentialFile&) = delete;

  Result<std::string_view> Read(size_t n, char* scratch) override {
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::read(fd_, scratch + got, n - got);
      if (r < 0) {
        if (errno == EINTR) continue;
        return Err(Status::FromErrno("read " + path_, errno));
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    return std::string_view(scratch, got);
  }

  Status Skip(uint64_t n) override {
    if (::lseek(fd_, static_cast<off_t>(n), SEEK_CUR) < 0) {
      return Status::FromErrno("seek " + path_, errno);
    }
    return Status::OK();
  }

  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const int fd_;
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }
  PosixRandomAccessFile(const PosixRandomAccessFile&) = delete;
  PosixRandomAccessFile& operator=(const PosixRandomAccessFile&) = delete;

  Result<std::string_view> Read(uint64_t offset, size_t n, char* scratch) const override {
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::pread(fd_, scratch + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0) {
        if (errno == EINTR) continue;
        return Err(Status::FromErrno("read " + path_ + " at " + std::to_string(offset), errno));
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    return std::string_view(scratch, got);
  }

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const int fd_;
  const uint64_t size_;
};

// Appends are gathered as pieces of about kWriteBuffer bytes in all: buffers taken whole
// from AppendBuffer (a table's data blocks, never copied here) and buffers the bytes of
// Append are copied into. Once they reach kWriteBuffer, the file's writer thread (started
// with the first batch) writes them with one writev while the next batch gathers, so that
// the kernel's copy into the page cache overlaps the caller's work; Flush, Sync,
// StartWriteback and Close wait for it. A written batch's buffers are kept to be filled
// again (by Append, or handed back by AppendBuffer). A failed background write is reported
// by the next call.
class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    static_cast<void>(Wait());
    if (writer_.joinable()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        quit_ = true;
      }
      cv_.notify_all();
      writer_.join();
    }
    if (fd_ >= 0) ::close(fd_);
  }
  PosixWritableFile(const PosixWritableFile&) = delete;
  PosixWritableFile& operator=(const PosixWritableFile&) = delete;

  Status Append(std::string_view data) override {
    if (data.size() >= kWriteBuffer) {
      NUTCHFS_RETURN_IF_ERROR(Flush());
      return WriteRaw(data);
    }
    if (gathered_.empty() ||
        gathered_.back().capacity() - gathered_.back().size() < data.size()) {
      gathered_.push_back(Spare(std::max(kCopyPiece, data.size())));
    }
    OwnedBytes& piece = gathered_.back();
    std::memcpy(piece.data() + piece.size(), data.data(), data.size());
    piece.set_size(piece.size() + data.size());
    return Gathered(data.size());
  }

  Status AppendBuffer(OwnedBytes* data) override {
    const size_t n = data->size();
    if (n == 0) return Status::OK();
    gathered_.push_back(std::move(*data));
    *data = Spare(0);
    return Gathered(n);
  }

  Status Flush() override {
    NUTCHFS_RETURN_IF_ERROR(Wait());
    Status s = WriteRaw(gathered_);
    Recycle(&gathered_);
    gathered_bytes_ = 0;
    return s;
  }

  Status Sync() override {
    NUTCHFS_RETURN_IF_ERROR(Flush());
    if (::fdatasync(fd_) != 0) return Status::FromErrno("sync " + path_, errno);
    return Status::OK();
  }

  Status Close() override {
    if (fd_ < 0) return Status::OK();
    Status s = Flush();
    if (::close(fd_) != 0 && s.ok()) s = Status::FromErrno("close " + path_, errno);
    fd_ = -1;
    // A closed file holds no memory, though its object may live on (a finished edit
    // file's writer may be kept for a while).
    gathered_ = std::vector<OwnedBytes>();
    writing_ = std::vector<OwnedBytes>();
    spares_ = std::vector<OwnedBytes>();
    spare_bytes_ = 0;
    return s;
  }

  const std::string& path() const override { return path_; }

  // sync_file_range(2) with SYNC_FILE_RANGE_WRITE queues the range for writeback and
  // returns; a failure here (or a file system without it) leaves the work to Sync.
  void StartWriteback() override {
    if (!Flush().ok() || written_ == writeback_from_) return;
    ::sync_file_range(fd_, static_cast<off_t>(writeback_from_),
                      static_cast<off_t>(written_ - writeback_from_), SYNC_FILE_RANGE_WRITE);
    writeback_from_ = written_;
  }

 private:
  // Buffers Append copies into hold this much, or the one append that needs more.
  static constexpr size_t kCopyPiece = 64 << 10;
  // Written buffers are kept up to this many bytes; the rest are freed.
  static constexpr size_t kMaxSpareBytes = kWriteBuffer;

  // A kept buffer of at least min_capacity bytes, emptied, or a new one.
  OwnedBytes Spare(size_t min_capacity) {
    if (!spares_.empty() && spares_.back().capacity() >= min_capacity) {
      OwnedBytes b = std::move(spares_.back());
      spares_.pop_back();
      spare_bytes_ -= b.capacity();
      b.set_size(0);
      return b;
    }
    return min_capacity > 0 ? OwnedBytes(min_capacity) : OwnedBytes();
  }

  void Recycle(std::vector<OwnedBytes>* written) {
    for (OwnedBytes& b : *written) {
      if (spare_bytes_ + b.capacity() > kMaxSpareBytes) break;
      spare_bytes_ += b.capacity();
      spares_.push_back(std::move(b));
    }
    written->clear();
  }

  // n more bytes gathered: a full batch goes to the writer thread.
  Status Gathered(size_t n) {
    gathered_bytes_ += n;
    if (gathered_bytes_ < kWriteBuffer) return Status::OK();
    NUTCHFS_RETURN_IF_ERROR(Wait());
    Recycle(&writing_);
    std::swap(gathered_, writing_);
    gathered_bytes_ = 0;
    WriteInBackground();
    return Status::OK();
  }

  // Hands writing_ to the writer thread. REQUIRES: no background write pending.
  void WriteInBackground() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending_ = true;
    }
    if (!writer_.joinable()) {
      writer_ = std::thread([this] { WriterLoop(); });
    } else {
      cv_.notify_all();
    }
  }

  void WriterLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return pending_ || quit_; });
      if (!pending_) return;
      lock.unlock();
      Status s = WriteRaw(writing_);
      lock.lock();
      background_status_ = std::move(s);
      pending_ = false;
      cv_.notify_all();
    }
  }

  // The background write's result (OK if there is none), once it is done.
  Status Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !pending_; });
    return std::exchange(background_status_, Status::OK());
  }

  Status WriteRaw(std::string_view data) {
    iovec one{const_cast<char*>(data.data()), data.size()};
    return WriteVector(&one, 1);
  }

  Status WriteRaw(std::vector<OwnedBytes>& pieces) {
    std::vector<iovec> iov;
    iov.reserve(pieces.size());
    for (OwnedBytes& b : pieces) {
      if (b.size() > 0) iov.push_back(iovec{b.data(), b.size()});
    }
    return WriteVector(iov.data(), iov.size());
  }

  // Writes every byte of iov[0, n) (updating iov as it goes), however the kernel splits it.
  Status WriteVector(iovec* iov, size_t n) {
    while (n > 0) {
      const ssize_t w = ::writev(fd_, iov, static_cast<int>(std::min<size_t>(n, IOV_MAX)));
      if (w < 0) {
        if (errno == EINTR) continue;
        return Status::FromErrno("write " + path_, errno);
      }
      written_ += static_cast<uint64_t>(w);
      size_t left = static_cast<size_t>(w);
      for (; n > 0 && left >= iov->iov_len; ++iov, --n) left -= iov->iov_len;
      if (left > 0) {
        iov->iov_base = static_cast<char*>(iov->iov_base) + left;
        iov->iov_len -= left;
      }
    }
    return Status::OK();
  }

  const std::string path_;
  int fd_;
  std::vector<OwnedBytes> gathered_;  // the batch being gathered
  size_t gathered_bytes_ = 0;
  std::vector<OwnedBytes> writing_;  // being written by the writer thread while pending_
  std::vector<OwnedBytes> spares_;   // written, kept to be filled again
  size_t spare_bytes_ = 0;           // their capacity
  std::mutex mu_;
  std::condition_variable cv_;
  bool pending_ = false;       // guarded by mu_
  bool quit_ = false;          // guarded by mu_
  Status background_status_;   // guarded by mu_
  std::thread writer_;         // started with the first background write
  uint64_t written_ = 0;         // bytes handed to the kernel
  uint64_t writeback_from_ = 0;  // where the next StartWriteback's range begins
};

class PosixEnv final : public Env {
 public:
  explicit PosixEnv(std::vector<std::string> roots) {
    for (std::string& root : roots) {
      while (root.size() > 1 && root.back() == '/') root.pop_back();
      if (root != "/") roots_.push_back(std::move(root));
    }
  }

  Capabilities capabilities() const override {
    Capabilities caps;
    caps.local_paths = true;
    caps.inotify = true;
    return caps;
  }

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(path));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Err(OpenError(path, errno));
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    WidenPipe(fd);
    return std::make_unique<PosixSequentialFile>(path, fd);
  }

  // Non-blocking open, so that a FIFO or device put where a file belongs is refused
  // instead of blocking the reader until something writes to it.
  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(path));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return Err(OpenError(path, errno));
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return Err(Status::FromErrno("stat " + path, err));
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      return Err(Status::IOError(path + ": not a regular file"));
    }
    return std::make_unique<PosixRandomAccessFile>(path, fd, static_cast<uint64_t>(st.st_size));
  }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(path));
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Err(OpenError(path, errno));
    return std::make_unique<PosixWritableFile>(path, fd);
  }

  // The contents are written and synced under a private name first, then link()ed to
  // path, which fails if path exists: the file appears complete or not at all, so a
  // crash can never leave an empty lock behind (and link is atomic on NFS too). The
  // private name is a temporary one (publish.h), which a crash may leave behind but
  // listings never show and a db's garbage collection removes.
  Status CreateExclusive(const std::string& path, std::string_view contents) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(path));
    const std::string tmp = TempPathFor(path);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return OpenError(tmp, errno);
    Status s;
    {
      PosixWritableFile file(tmp, fd);
      s = file.Append(contents);
      if (s.ok()) s = file.Sync();
      if (s.ok()) s = file.Close();
    }
    if (s.ok() && ::link(tmp.c_str(), path.c_str()) != 0) {
      s = errno == EEXIST ? Status::Busy(path + " already exists") : OpenError(path, errno);
    }
    ::unlink(tmp.c_str());
    return s;
  }

  bool FileExists(const std::string& path) override {
    return !CheckNoLinks(path).ok() || ::access(path.c_str(), F_OK) == 0;
  }

  Result<uint64_t> GetFileSize(const std::string& path) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(path));
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Err(OpenError(path, errno));
    return static_cast<uint64_t>(st.st_size);
  }

  Result<std::vector<std::string>> GetChildren(const std::string& dir) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(dir));
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return Err(OpenError(dir, errno));
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(d);
    return names;
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(from));
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(DirOf(to)));
    if (::rename(from.c_str(), to.c_str()) != 0) {
      if (errno == ENOENT) return OpenError("rename " + from + " to " + to, errno);
      return Status::FromErrno("rename " + from + " to " + to, errno);
    }
    return Status::OK();
  }

  Status RemoveFile(const std::string& path) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(DirOf(path)));
    if (::unlink(path.c_str()) != 0) return OpenError(path, errno);
    return Status::OK();
  }

  Status CreateDirs(const std::string& dir) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(dir));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Status::IOError("create directory " + dir + ": " + ec.message());
    return Status::OK();
  }

  Status RemoveDirRecursively(const std::string& dir) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(DirOf(dir)));
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (ec) return Status::IOError("remove " + dir + ": " + ec.message());
    return Status::OK();
  }

  Status SyncDir(const std::string& dir) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(dir));
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return OpenError(dir, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return Status::FromErrno("sync directory " + dir, err);
    return Status::OK();
  }

  // The kernel copies (copy_file_range): the bytes never pass through this process.
  // Where it cannot (another file system type, an old kernel), Env's streaming copy.
  Status CopyWithin(const std::string& from, const std::string& to) override {
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(from));
    NUTCHFS_RETURN_IF_ERROR(CheckNoLinks(to));
    int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) return OpenError(from, errno);
    int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
      int err = errno;
      ::close(in);
      return OpenError(to, err);
    }
    PosixWritableFile file(to, out);  // closes out
    uint64_t copied = 0;
    ssize_t n;
    while ((n = ::copy_file_range(in, nullptr, out, nullptr, 1 << 30, 0)) > 0) copied += n;
    int err = errno;
    ::close(in);
    if (n < 0 && copied == 0 &&
        (err == EXDEV || err == ENOSYS || err == EOPNOTSUPP || err == EINVAL)) {
      NUTCHFS_RETURN_IF_ERROR(file.Close());
      return Env::CopyWithin(from, to);
    }
    if (n < 0) return Status::FromErrno("copy " + from + " to " + to, err);
    NUTCHFS_RETURN_IF_ERROR(file.Sync());
    return file.Close();
  }

 private:
  // Refused if a component of path below one of roots_ is a symbolic link (lstat, one
  // component at a time; components that do not exist end the walk).
  Status CheckNoLinks(const std::string& path) const {
    for (const std::string& root : roots_) {
      if (path.size() <= root.size() || path.compare(0, root.size(), root) != 0 ||
          path[root.size()] != '/') {
        continue;
      }
      for (size_t end = root.size() + 1; end <= path.size(); ++end) {
        if (end < path.size() && path[end] != '/') continue;
        const std::string prefix = path.substr(0, end);
        struct stat st;
        if (::lstat(prefix.c_str(), &st) != 0) return Status::OK();
        if (S_ISLNK(st.st_mode)) {
          return Status::Refused(path + ": " + prefix +
                                 " is a symbolic link below the NutchFS root " + root +
                                 "; refused");
        }
      }
      return Status::OK();
    }
    return Status::OK();
  }

  static Status OpenError(const std::string& path, int err) {
    if (err == ENOENT) return Status::NotFound(path + ": no such file or directory");
    return Status::FromErrno(path, err);
  }

  std::vector<std::string> roots_;
};

}  // namespace

std::unique_ptr<Env> NewLocalEnv(std::vector<std::string> confined_roots) {
  return std::make_unique<PosixEnv>(std::move(confined_roots));
}

Result<std::string> ReadFileToString(Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewRandomAccessFile(path));
  // The size when opened: a file that keeps growing is read up to there.
  std::string out(file->size(), '\0');
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, file->Read(0, out.size(), out.data()));
  out.resize(got.size());
  return out;
}

Result<std::string> ReadStreamToString(Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewSequentialFile(path));
  std::string out;
  std::string scratch(1 << 16, '\0');
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view chunk, file->Read(scratch.size(), scratch.data()));
    if (chunk.empty()) break;
    out.append(chunk);
  }
  return out;
}

Status WriteFileAtomically(Env& env, const std::string& path, std::string_view contents) {
  // Unique per process and call: several processes may publish the same path at once
  // (writers sharing one NFS directory), each rename then installs identical content.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(counter.fetch_add(1));
  Status s;
  {
    auto file = env.NewWritableFile(tmp);
    s = file ? (*file)->Append(contents) : file.error();
    if (s.ok()) s = (*file)->Sync();
    if (s.ok()) s = (*file)->Close();
  }
  if (s.ok()) s = env.RenameFile(tmp, path);
  if (!s.ok()) {
    Status ignored = env.RemoveFile(tmp);
    (void)ignored;  // absent if never created; the first error is the one to report
    return s;
  }
  return env.SyncDir(DirOf(path));
}

}  // namespace nutchfs
