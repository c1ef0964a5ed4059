// Env: the file operations every other module uses, LevelDB's Env cut down to what a
// batch-merging database needs. webdb/ and distwriter/ never call the OS directly.
//
// Paths are plain strings understood by the Env that made them. Files returned by an
// Env are owned by the caller (unique_ptr) and are not thread-safe, except
// RandomAccessFile::Read, which may be called concurrently. An Env itself is
// thread-safe.
#ifndef NUTCHFS_ENV_H_
#define NUTCHFS_ENV_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/owned_bytes.h"
#include "nutchfs/status.h"

namespace nutchfs {

// Reads a file front to back.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  // Reads up to n bytes into scratch and returns a view of what was read; an empty
  // view means end of file. REQUIRES: scratch holds n bytes.
  virtual Result<std::string_view> Read(size_t n, char* scratch) = 0;
  virtual Status Skip(uint64_t n) = 0;
  virtual const std::string& path() const = 0;
};

// Reads any range of a file; Read is safe to call from several threads.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads up to n bytes at offset; fewer only at end of file.
  virtual Result<std::string_view> Read(uint64_t offset, size_t n, char* scratch) const = 0;
  virtual uint64_t size() const = 0;
  virtual const std::string& path() const = 0;
};

// Appends to a new file. Data reaches the OS on Flush/Sync/Close and stable storage
// on Sync. Destroying an unclosed file closes it without syncing.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::string_view data) = 0;
  // Appends the bytes of *data, as Append(data->view()) would, and leaves in *data a
  // buffer for the caller to fill again (any capacity, possibly 0; its bytes are not the
  // caller's). A file may so take the caller's buffer instead of copying it; the default
  // copies and leaves the caller its own.
  virtual Status AppendBuffer(OwnedBytes* data) { return Append(data->view()); }
  virtual Status Flush() = 0;
  virtual Status Sync() = 0;
  virtual Status Close() = 0;
  virtual const std::string& path() const = 0;
  // A hint for a file that will be synced: hands what was appended so far to the OS and
  // starts writing it to stable storage without waiting, so that the disk works while the
  // caller computes and the final Sync has little left to wait for. Errors surface at
  // Sync. The default does nothing.
  virtual void StartWriteback() {}
};

// What a backend can do, so callers choose a strategy without asking which backend
// it is.
struct Capabilities {
  // Paths name files of the OS this process runs on (another process or tool on this
  // machine can open them directly).
  bool local_paths = false;
  // Arrivals in a directory can be watched with inotify (a fast path only: callers still
  // poll, because changes made by other machines on NFS or sshfs produce no event).
  bool inotify = false;
};

class Env {
 public:
  virtual ~Env() = default;

  // The default describes a backend with neither capability.
  virtual Capabilities capabilities() const { return Capabilities(); }

  virtual Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) = 0;
  virtual Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) = 0;
  // Creates or truncates path.
  virtual Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) = 0;
  // Creates path with the given contents, synced; Busy if path already exists. This is
  // the only exclusive-creation primitive (O_EXCL), used for lock files.
  virtual Status CreateExclusive(const std::string& path, std::string_view contents) = 0;

  virtual bool FileExists(const std::string& path) = 0;
  virtual Result<uint64_t> GetFileSize(const std::string& path) = 0;
  // Names (not paths) of the entries of dir, without "." and "..".
  virtual Result<std::vector<std::string>> GetChildren(const std::string& dir) = 0;
  // Atomically replaces to by from. REQUIRES: both in the same directory or at least
  // on the same mount; across mounts this fails (EXDEV), as on NFS. NotFound when from
  // (or to's directory) does not exist.
  virtual Status RenameFile(const std::string& from, const std::string& to) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  // Creates dir and missing parents; OK if it exists.
  virtual Status CreateDirs(const std::string& dir) = 0;
  // Removes dir and everything below it; OK if it does not exist.
  virtual Status RemoveDirRecursively(const std::string& dir) = 0;
  // Makes renames and creations inside dir durable.
  virtual Status SyncDir(const std::string& dir) = 0;

  // Copies the file at from to to (created or truncated), synced and closed. The default
  // streams the bytes through this Env's own files; a backend may copy without moving
  // them through the caller (the local Env uses copy_file_range).
  virtual Status CopyWithin(const std::string& from, const std::string& to);
};

// The local POSIX file system (also NFS and sshfs mounts). Below each of confined_roots
// (the NutchFS roots of machines reached through it) no path component may be a
// symbolic link: every entry point refuses such a path (Status::Refused naming the link),
// so that a link planted in a share directory cannot lead outside it. FileExists is true
// for such a path, so that a wait for it ends in the refusal rather than a timeout;
// RemoveFile and RemoveDirRecursively may remove a link itself. Paths outside the roots
// (working files, standard input) are not checked.
std::unique_ptr<Env> NewLocalEnv(std::vector<std::string> confined_roots = {});

// Convenience: whole-file read and write-then-rename publication through an Env.
// ReadFileToString reads a regular file (up to its size when opened) and refuses
// anything else (a FIFO, a device) at once; ReadStreamToString reads any file,
// pipes included, to its end.
Result<std::string> ReadFileToString(Env& env, const std::string& path);
Result<std::string> ReadStreamToString(Env& env, const std::string& path);
// Writes contents to a temporary name beside path, syncs, renames over path and syncs
// the directory; on failure the temporary file is removed.
Status WriteFileAtomically(Env& env, const std::string& path, std::string_view contents);
// Env::CreateDirs, and the new directories made durable: the directory holding each
// directory it created is synced (a new directory's entry is durable only then, and
// with it everything below). Syncs nothing when dir exists.
Status CreateDirsDurably(Env& env, const std::string& dir);

}  // namespace nutchfs

#endif  // NUTCHFS_ENV_H_
