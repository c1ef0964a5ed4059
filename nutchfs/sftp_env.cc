// The SFTP Env: file contents go through the files in sftp_files.cc, metadata
// (stat, list, mkdir, remove) through libssh's SFTP API, every operation inside
// SftpConnection::Retry so that a dropped connection is re-established and the
// operation repeated.
#include "nutchfs/sftp_env.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <utility>

#include "nutchfs/sftp_connection.h"
#include "nutchfs/sftp_files.h"

namespace nutchfs {
namespace {

struct Attrs {
  bool is_dir = false;
  uint64_t size = 0;
};

struct Entry {
  std::string name;
  bool is_dir = false;  // a real directory, not a link to one
};

Attrs ToAttrs(sftp_attributes a) {
  Attrs attrs;
  attrs.is_dir = a->type == SSH_FILEXFER_TYPE_DIRECTORY;
  attrs.size = a->size;
  sftp_attributes_free(a);
  return attrs;
}

// The attributes of path (of a link itself if !follow), or nullopt if it is missing.
Result<std::optional<Attrs>> StatIfExists(SshSession& s, const std::string& path, bool follow) {
  s.BeginCall();
  sftp_attributes a =
      follow ? sftp_stat(s.sftp(), path.c_str()) : sftp_lstat(s.sftp(), path.c_str());
  if (a != nullptr) return std::optional<Attrs>(ToAttrs(a));
  Status st = s.MetaError("stat", path);
  if (st.IsNotFound()) return std::optional<Attrs>();
  return Err(st);
}

Result<std::vector<Entry>> ListDir(SshSession& s, const std::string& dir) {
  s.BeginCall();
  sftp_dir d = sftp_opendir(s.sftp(), dir.c_str());
  if (d == nullptr) return Err(s.MetaError("list", dir));
  std::vector<Entry> entries;
  for (;;) {
    s.BeginCall();
    sftp_attributes a = sftp_readdir(s.sftp(), d);
    if (a == nullptr) break;
    std::string name = a->name;
    const bool is_dir = ToAttrs(a).is_dir;
    if (name != "." && name != "..") entries.push_back(Entry{std::move(name), is_dir});
  }
  Status st = sftp_dir_eof(d) ? Status::OK() : s.MetaError("list", dir);
  (void)sftp_closedir(d);  // a failed close leaks a server handle at worst
  if (!st.ok()) return Err(st);
  return entries;
}

// Runs a libssh call returning 0 on success; a missing path counts as success if
// missing_ok.
template <typename Call>
Status Meta(SshSession& s, std::string_view op, const std::string& path, bool missing_ok,
            Call&& call) {
  s.BeginCall();
  if (call() == 0) return Status::OK();
  Status st = s.MetaError(op, path);
  return missing_ok && st.IsNotFound() ? Status::OK() : st;
}

Status RemoveTree(SshSession& s, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto attrs, StatIfExists(s, path, /*follow=*/false));
  if (!attrs) return Status::OK();
  if (!attrs->is_dir) {
    return Meta(s, "remove", path, true, [&] { return sftp_unlink(s.sftp(), path.c_str()); });
  }
  NUTCHFS_ASSIGN_OR_RETURN(auto entries, ListDir(s, path));
  for (const Entry& e : entries) {
    const std::string child = path + "/" + e.name;
    if (e.is_dir) {
      NUTCHFS_RETURN_IF_ERROR(RemoveTree(s, child));
    } else {
      NUTCHFS_RETURN_IF_ERROR(
          Meta(s, "remove", child, true, [&] { return sftp_unlink(s.sftp(), child.c_str()); }));
    }
  }
  return Meta(s, "remove directory", path, true,
              [&] { return sftp_rmdir(s.sftp(), path.c_str()); });
}

std::string StripTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string ParentOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status MakeDirs(SshSession& s, const std::string& dir) {
  if (dir.empty() || dir == "/") return Status::OK();
  NUTCHFS_ASSIGN_OR_RETURN(auto attrs, StatIfExists(s, dir, /*follow=*/true));
  if (attrs) {
    if (attrs->is_dir) return Status::OK();
    return Status::IOError(s.name() + ": create directory " + dir + ": a file is in the way");
  }
  NUTCHFS_RETURN_IF_ERROR(MakeDirs(s, ParentOf(dir)));
  Status made = Meta(s, "create directory", dir, false,
                     [&] { return sftp_mkdir(s.sftp(), dir.c_str(), 0755); });
  if (made.ok() || s.broken()) return made;
  // Another client may have created it meanwhile.
  NUTCHFS_ASSIGN_OR_RETURN(auto again, StatIfExists(s, dir, /*follow=*/true));
  return again && again->is_dir ? Status::OK() : made;
}

class SftpEnv final : public Env {
 public:
  explicit SftpEnv(std::shared_ptr<SftpConnection> connection)
      : connection_(std::move(connection)) {}

  Capabilities capabilities() const override {
    Capabilities caps;
    caps.local_paths = false;
    caps.inotify = false;
    return caps;
  }

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    return NewSftpSequentialFile(connection_, path);
  }

  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(const std::string& path) override {
    return NewSftpRandomAccessFile(connection_, path);
  }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    return NewSftpWritableFile(connection_, path);
  }

  Status CreateExclusive(const std::string& path, std::string_view contents) override {
    return SftpCreateExclusive(connection_, path, contents);
  }

  bool FileExists(const std::string& path) override {
    auto attrs = connection_->Retry([&](SshSession& s) { return StatIfExists(s, path, true); });
    if (!attrs) {
      spdlog::warn("FileExists: {}", attrs.error().ToString());
      return false;
    }
    return attrs->has_value();
  }

  Result<uint64_t> GetFileSize(const std::string& path) override {
    return connection_->Retry([&](SshSession& s) -> Result<uint64_t> {
      NUTCHFS_ASSIGN_OR_RETURN(auto attrs, StatIfExists(s, path, true));
      if (!attrs) return Err(Status::NotFound(s.name() + ": " + path + ": no such file"));
      return attrs->size;
    });
  }

  Result<std::vector<std::string>> GetChildren(const std::string& dir) override {
    return connection_->Retry([&](SshSession& s) -> Result<std::vector<std::string>> {
      NUTCHFS_ASSIGN_OR_RETURN(auto entries, ListDir(s, dir));
      std::vector<std::string> names;
      names.reserve(entries.size());
      for (Entry& e : entries) names.push_back(std::move(e.name));
      return names;
    });
  }

  // A repeated rename or remove whose first attempt went through (its reply lost with
  // the connection) finds its source gone; that counts as success.
  Status RenameFile(const std::string& from, const std::string& to) override {
    bool tried = false;
    return connection_->Retry([&](SshSession& s) -> Status {
      const bool again = std::exchange(tried, true);
      Status st = s.data().PosixRename(from, to);
      if (st.IsNotFound() && again) {
        NUTCHFS_ASSIGN_OR_RETURN(auto source, StatIfExists(s, from, false));
        NUTCHFS_ASSIGN_OR_RETURN(auto target, StatIfExists(s, to, false));
        if (!source && target) return Status::OK();
      }
      return st;
    });
  }

  Status RemoveFile(const std::string& path) override {
    bool tried = false;
    return connection_->Retry([&](SshSession& s) -> Status {
      const bool again = std::exchange(tried, true);
      return Meta(s, "remove", path, again, [&] { return sftp_unlink(s.sftp(), path.c_str()); });
    });
  }

  Status CreateDirs(const std::string& dir) override {
    const std::string d = StripTrailingSlashes(dir);
    return connection_->Retry([&](SshSession& s) { return MakeDirs(s, d); });
  }

  Status RemoveDirRecursively(const std::string& dir) override {
    const std::string d = StripTrailingSlashes(dir);
    return connection_->Retry([&](SshSession& s) { return RemoveTree(s, d); });
  }

  // fsync@openssh.com on the directory opened as a file (OpenSSH's server allows
  // that). A server that cannot open a directory or lacks the extension gives no way
  // to sync one: then this is a no-op, and durability rests on the server.
  Status SyncDir(const std::string& dir) override {
    return connection_->Retry([&](SshSession& s) -> Status {
      auto handle = s.data().OpenFile(dir, kSftpRead);
      if (!handle) {
        return handle.error().IsNotFound() || s.broken() ? handle.error() : Status::OK();
      }
      Status synced = Status::OK();
      if (s.data().HasExtension("fsync@openssh.com")) synced = s.data().Fsync(*handle);
      if (s.broken()) return synced;
      Status closed = s.data().CloseFile(*handle);
      return synced.ok() ? closed : synced;
    });
  }

 private:
  const std::shared_ptr<SftpConnection> connection_;
};

}  // namespace

Result<std::unique_ptr<Env>> NewSftpEnv(const SftpOptions& options) {
  NUTCHFS_ASSIGN_OR_RETURN(auto connection, SftpConnection::Connect(options));
  return std::unique_ptr<Env>(std::make_unique<SftpEnv>(std::move(connection)));
}

}  // namespace nutchfs
