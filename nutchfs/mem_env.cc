// The in-memory Env. One mutex guards the namespace (a map of files and a set of
// directories); each file's bytes live in an Inode with its own mutex, shared by the open
// files that use it, so an open file outlives removal or replacement of its name.
#include "nutchfs/mem_env.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

namespace nutchfs {
namespace {

struct Inode {
  std::mutex mu;
  std::string data;
};

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string ChildPrefix(const std::string& dir) { return dir == "/" ? "/" : dir + "/"; }

Status NoSuchFile(const std::string& path) {
  return Status::NotFound(path + ": no such file or directory");
}

// Absolute, no trailing '/', no empty, "." or ".." component.
Result<std::string> Normalize(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  bool bad = p.empty() || p.front() != '/';
  for (size_t start = 1; !bad && start < p.size();) {
    size_t slash = std::min(p.find('/', start), p.size());
    std::string_view part = std::string_view(p).substr(start, slash - start);
    bad = part.empty() || part == "." || part == "..";
    start = slash + 1;
  }
  if (bad) return Err(Status::InvalidArgument("memory env: bad path '" + path + "'"));
  return p;
}

class MemSequentialFile final : public SequentialFile {
 public:
  MemSequentialFile(std::string path, std::shared_ptr<Inode> inode)
      : path_(std::move(path)), inode_(std::move(inode)) {}

  Result<std::string_view> Read(size_t n, char* scratch) override {
    std::lock_guard<std::mutex> lock(inode_->mu);
    size_t start = static_cast<size_t>(std::min<uint64_t>(pos_, inode_->data.size()));
    size_t got = std::min(n, inode_->data.size() - start);
    std::copy_n(inode_->data.data() + start, got, scratch);
    pos_ += got;
    return std::string_view(scratch, got);
  }

  Status Skip(uint64_t n) override {
    pos_ += n;
    return Status::OK();
  }

  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const std::shared_ptr<Inode> inode_;
  uint64_t pos_ = 0;
};

class MemRandomAccessFile final : public RandomAccessFile {
 public:
  MemRandomAccessFile(std::string path, std::shared_ptr<Inode> inode, uint64_t size)
      : path_(std::move(path)), inode_(std::move(inode)), size_(size) {}

  Result<std::string_view> Read(uint64_t offset, size_t n, char* scratch) const override {
    std::lock_guard<std::mutex> lock(inode_->mu);
    uint64_t size = inode_->data.size();
    size_t got = offset >= size ? 0 : static_cast<size_t>(std::min<uint64_t>(n, size - offset));
    std::copy_n(inode_->data.data() + offset, got, scratch);
    return std::string_view(scratch, got);
  }

  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const std::shared_ptr<Inode> inode_;
  const uint64_t size_;
};

class MemWritableFile final : public WritableFile {
 public:
  MemWritableFile(std::string path, std::shared_ptr<Inode> inode)
      : path_(std::move(path)), inode_(std::move(inode)) {}

  Status Append(std::string_view data) override {
    if (closed_) return Status::IOError("append to closed file " + path_);
    std::lock_guard<std::mutex> lock(inode_->mu);
    inode_->data.append(data);
    return Status::OK();
  }
  Status Flush() override { return CheckOpen("flush"); }
  Status Sync() override { return CheckOpen("sync"); }
  Status Close() override {
    closed_ = true;
    return Status::OK();
  }
  const std::string& path() const override { return path_; }

 private:
  Status CheckOpen(const char* op) const {
    if (closed_) return Status::IOError(std::string(op) + " of closed file " + path_);
    return Status::OK();
  }

  const std::string path_;
  const std::shared_ptr<Inode> inode_;
  bool closed_ = false;
};

class MemEnv final : public Env {
 public:
  MemEnv() { dirs_.insert("/"); }

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    NUTCHFS_ASSIGN_OR_RETURN(auto inode, OpenExisting(path));
    return std::make_unique<MemSequentialFile>(path, std::move(inode));
  }

  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(const std::string& path) override {
    NUTCHFS_ASSIGN_OR_RETURN(auto inode, OpenExisting(path));
    uint64_t size;
    {
      std::lock_guard<std::mutex> lock(inode->mu);
      size = inode->data.size();
    }
    return std::make_unique<MemRandomAccessFile>(path, std::move(inode), size);
  }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    NUTCHFS_ASSIGN_OR_RETURN(std::string p, Normalize(path));
    std::lock_guard<std::mutex> lock(mu_);
    NUTCHFS_RETURN_IF_ERROR(CheckCreatable(p));
    std::shared_ptr<Inode>& inode = files_[p];
    if (inode == nullptr) {
      inode = std::make_shared<Inode>();
    } else {
      std::lock_guard<std::mutex> file_lock(inode->mu);
      inode->data.clear();
    }
    return std::make_unique<MemWritableFile>(path, inode);
  }

  Status CreateExclusive(const std::string& path, std::string_view contents) override {
    NUTCHFS_ASSIGN_OR_RETURN(std::string p, Normalize(path));
    std::lock_guard<std::mutex> lock(mu_);
    if (files_.count(p) != 0 || dirs_.count(p) != 0) {
      return Status::Busy(path + " already exists");
    }
    NUTCHFS_RETURN_IF_ERROR(CheckCreatable(p));
    auto inode = std::make_shared<Inode>();
    inode->data = std::string(contents);
    files_[p] = std::move(inode);
    return Status::OK();
  }

  bool FileExists(const std::string& path) override {
    auto p = Normalize(path);
    if (!p) return false;
    std::lock_guard<std::mutex> lock(mu_);
    return files_.count(*p) != 0 || dirs_.count(*p) != 0;
  }

  Result<uint64_t> GetFileSize(const std::string& path) override {
    NUTCHFS_ASSIGN_OR_RETURN(auto inode, OpenExisting(path));
    std::lock_guard<std::mutex> lock(inode->mu);
    return static_cast<uint64_t>(inode->data.size());
  }

  Result<std::vector<std::string>> GetChildren(const std::string& dir) override {
    NUTCHFS_ASSIGN_OR_RETURN(std::string d, Normalize(dir));
    std::lock_guard<std::mutex> lock(mu_);
    NUTCHFS_RETURN_IF_ERROR(CheckDir(d));
    std::vector<std::string> names;
    const std::string prefix = ChildPrefix(d);
    AddChildren(files_, prefix, &names);
    AddChildren(dirs_, prefix, &names);
    return names;
  }

  Status RenameFile(const std::string& from, const std::string& to) override;

  Status RemoveFile(const std::string& path) override {
    NUTCHFS_ASSIGN_OR_RETURN(std::string p, Normalize(path));
    std::lock_guard<std::mutex> lock(mu_);
    if (dirs_.count(p) != 0) return Status::IOError(path + ": is a directory");
    if (files_.erase(p) == 0) return NoSuchFile(path);
    return Status::OK();
  }

  Status CreateDirs(const std::string& dir) override {
    NUTCHFS_ASSIGN_OR_RETURN(std::string d, Normalize(dir));
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> chain;
    for (size_t slash = d.find('/', 1);; slash = d.find('/', slash + 1)) {
      chain.push_back(d.substr(0, slash));
      if (files_.count(chain.back()) != 0) {
        return Status::IOError("create directory " + dir + ": " + chain.back() + " is a file");
      }
      if (slash == std::string::npos) break;
    }
    if (d != "/") dirs_.insert(chain.begin(), chain.end());
    return Status::OK();
  }

  Status RemoveDirRecursively(const std::string& dir) override {
    NUTCHFS_ASSIGN_OR_RETURN(std::string d, Normalize(dir));
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(d);
    EraseTree(files_, d);
    EraseTree(dirs_, d);
    if (d != "/") dirs_.erase(d);
    return Status::OK();
  }

  Status SyncDir(const std::string& dir) override {
    NUTCHFS_ASSIGN_OR_RETURN(std::string d, Normalize(dir));
    std::lock_guard<std::mutex> lock(mu_);
    return CheckDir(d);
  }

 private:
  template <typename Container>
  static void AddChildren(const Container& c, const std::string& prefix,
                          std::vector<std::string>* names) {
    for (auto it = c.lower_bound(prefix); it != c.end(); ++it) {
      const std::string& key = KeyOf(*it);
      if (!key.starts_with(prefix)) break;
      std::string rest = key.substr(prefix.size());
      if (!rest.empty() && rest.find('/') == std::string::npos) names->push_back(rest);
    }
  }

  template <typename Container>
  static void EraseTree(Container& c, const std::string& dir) {
    const std::string prefix = ChildPrefix(dir);
    auto it = c.lower_bound(prefix);
    while (it != c.end() && KeyOf(*it).starts_with(prefix)) it = c.erase(it);
  }

  static const std::string& KeyOf(const std::string& key) { return key; }
  static const std::string& KeyOf(const std::pair<const std::string, std::shared_ptr<Inode>>& kv) {
    return kv.first;
  }

  Result<std::shared_ptr<Inode>> OpenExisting(const std::string& path) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string p, Normalize(path));
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(p);
    if (it != files_.end()) return it->second;
    if (dirs_.count(p) != 0) return Err(Status::IOError(path + ": is a directory"));
    return Err(NoSuchFile(path));
  }

  // REQUIRES: mu_ held.
  Status CheckDir(const std::string& d) const {
    if (dirs_.count(d) != 0) return Status::OK();
    if (files_.count(d) != 0) return Status::IOError(d + ": not a directory");
    return NoSuchFile(d);
  }

  // A file may be created at p. REQUIRES: mu_ held.
  Status CheckCreatable(const std::string& p) const {
    if (dirs_.count(p) != 0) return Status::IOError(p + ": is a directory");
    return CheckDir(ParentOf(p));
  }

  Status RenameDir(const std::string& from, const std::string& to);

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Inode>> files_;
  std::set<std::string> dirs_;
};

Status MemEnv::RenameFile(const std::string& from, const std::string& to) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string f, Normalize(from));
  NUTCHFS_ASSIGN_OR_RETURN(std::string t, Normalize(to));
  const std::string what = "rename " + from + " to " + to;
  std::lock_guard<std::mutex> lock(mu_);
  if (dirs_.count(f) != 0) return RenameDir(f, t).WithContext(what);
  auto it = files_.find(f);
  if (it == files_.end()) return NoSuchFile(from).WithContext("rename");
  NUTCHFS_RETURN_IF_ERROR(CheckCreatable(t).WithContext(what));
  if (f == t) return Status::OK();
  std::shared_ptr<Inode> inode = it->second;
  files_.erase(it);
  files_[t] = std::move(inode);
  return Status::OK();
}

// REQUIRES: mu_ held, from is a directory.
Status MemEnv::RenameDir(const std::string& from, const std::string& to) {
  if (from == to) return Status::OK();
  if (to.starts_with(ChildPrefix(from))) return Status::IOError("target inside source");
  if (files_.count(to) != 0) return Status::IOError(to + ": not a directory");
  NUTCHFS_RETURN_IF_ERROR(CheckDir(ParentOf(to)));
  if (dirs_.count(to) != 0) {
    std::vector<std::string> inside;
    AddChildren(files_, ChildPrefix(to), &inside);
    AddChildren(dirs_, ChildPrefix(to), &inside);
    if (!inside.empty()) return Status::IOError(to + ": directory not empty");
  }
  const std::string old_prefix = ChildPrefix(from);
  const std::string new_prefix = ChildPrefix(to);
  std::map<std::string, std::shared_ptr<Inode>> moved_files;
  for (auto it = files_.lower_bound(old_prefix);
       it != files_.end() && it->first.starts_with(old_prefix);) {
    moved_files[new_prefix + it->first.substr(old_prefix.size())] = std::move(it->second);
    it = files_.erase(it);
  }
  std::set<std::string> moved_dirs;
  for (auto it = dirs_.lower_bound(old_prefix); it != dirs_.end() && it->starts_with(old_prefix);) {
    moved_dirs.insert(new_prefix + it->substr(old_prefix.size()));
    it = dirs_.erase(it);
  }
  dirs_.erase(from);
  dirs_.insert(to);
  files_.merge(moved_files);
  dirs_.merge(moved_dirs);
  return Status::OK();
}

}  // namespace

std::unique_ptr<Env> NewMemEnv() { return std::make_unique<MemEnv>(); }

}  // namespace nutchfs
