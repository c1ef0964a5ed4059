// The power-loss Env: a tree of inodes. Each directory keeps two tables of entries, the
// live one and the one on disk (copied from the live one by SyncDir); each file its live
// bytes and the bytes of its last sync. The durable state is what the on-disk tables
// reach from the root, with synced bytes; a DurableImage is that state, frozen.
// One mutex guards the whole tree and the open files' access to it.
#include "nutchfs/power_loss_env.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <variant>

namespace nutchfs {

class DurableImage {
 public:
  struct File {
    std::shared_ptr<const std::string> data;
  };
  struct Dir;
  using Entry = std::variant<std::shared_ptr<const File>, std::shared_ptr<const Dir>>;
  struct Dir {
    std::map<std::string, Entry> entries;
  };
  std::shared_ptr<const Dir> root;
};

namespace {

struct PlFile {
  std::string data;
  std::shared_ptr<const std::string> synced;  // null: never synced
};
struct PlDir;
using Node = std::variant<std::shared_ptr<PlFile>, std::shared_ptr<PlDir>>;
struct PlDir {
  std::map<std::string, Node> live;
  std::map<std::string, Node> durable;
};

PlDir* AsDir(const Node& n) {
  auto* d = std::get_if<std::shared_ptr<PlDir>>(&n);
  return d == nullptr ? nullptr : d->get();
}
std::shared_ptr<PlFile> AsFile(const Node& n) {
  auto* f = std::get_if<std::shared_ptr<PlFile>>(&n);
  return f == nullptr ? nullptr : *f;
}

Status NoSuchFile(const std::string& path) {
  return Status::NotFound(path + ": no such file or directory");
}
Status PowerLost(const std::string& path) { return Status::IOError(path + ": power lost"); }

// "/a/b" -> {"a", "b"}; "/" -> {}. Absolute, no empty, "." or ".." component.
Result<std::vector<std::string>> Split(const std::string& path) {
  std::vector<std::string> parts;
  bool bad = path.empty() || path.front() != '/';
  for (size_t start = 1; !bad && start < path.size();) {
    size_t slash = std::min(path.find('/', start), path.size());
    std::string part = path.substr(start, slash - start);
    if (part.empty() && slash == path.size()) break;  // a trailing '/'
    bad = part.empty() || part == "." || part == "..";
    parts.push_back(std::move(part));
    start = slash + 1;
  }
  if (bad) return Err(Status::InvalidArgument("power-loss env: bad path '" + path + "'"));
  return parts;
}

// Freezes the durable state below a directory. `files` keeps one image per inode (a file
// reachable by two names stays one file); `path` holds the directories being visited, so
// that the cycles strict durability can make of directory renames are cut.
std::shared_ptr<const DurableImage::Dir> Freeze(
    const PlDir& dir, std::map<const PlFile*, std::shared_ptr<const DurableImage::File>>* files,
    std::set<const PlDir*>* path) {
  auto out = std::make_shared<DurableImage::Dir>();
  path->insert(&dir);
  for (const auto& [name, node] : dir.durable) {
    if (const PlDir* sub = AsDir(node)) {
      if (path->count(sub) == 0) out->entries.emplace(name, Freeze(*sub, files, path));
      continue;
    }
    const PlFile* f = AsFile(node).get();
    auto& image = (*files)[f];
    if (image == nullptr) {
      image = std::make_shared<DurableImage::File>(
          DurableImage::File{f->synced ? f->synced : std::make_shared<const std::string>()});
    }
    out->entries.emplace(name, image);
  }
  path->erase(&dir);
  return out;
}

// A live tree whose every entry and byte is durable, from an image.
std::shared_ptr<PlDir> Thaw(const DurableImage::Dir& image,
                            std::map<const DurableImage::File*, std::shared_ptr<PlFile>>* files) {
  auto dir = std::make_shared<PlDir>();
  for (const auto& [name, entry] : image.entries) {
    Node node;
    if (auto* sub = std::get_if<std::shared_ptr<const DurableImage::Dir>>(&entry)) {
      node = Thaw(**sub, files);
    } else {
      const auto& f = std::get<std::shared_ptr<const DurableImage::File>>(entry);
      std::shared_ptr<PlFile>& file = (*files)[f.get()];
      if (file == nullptr) file = std::make_shared<PlFile>(PlFile{*f->data, f->data});
      node = file;
    }
    dir->live.emplace(name, node);
    dir->durable.emplace(name, node);
  }
  return dir;
}

// The file system and its crash-point log, shared by the Env and its open files.
struct Core {
  std::mutex mu;
  std::shared_ptr<PlDir> root = std::make_shared<PlDir>();
  uint64_t generation = 0;  // bumped by each power loss; older open files are dead
  bool recording = false;
  bool changed = true;  // the durable state changed since last_image was frozen
  std::shared_ptr<const DurableImage> last_image;
  std::vector<CrashPoint> points;

  // REQUIRES: mu held.
  std::shared_ptr<const DurableImage> Freeze() {
    std::map<const PlFile*, std::shared_ptr<const DurableImage::File>> files;
    std::set<const PlDir*> path;
    auto image = std::make_shared<DurableImage>();
    image->root = nutchfs::Freeze(*root, &files, &path);
    return image;
  }
  std::shared_ptr<const DurableImage> Durable() {
    if (changed || last_image == nullptr) {
      last_image = Freeze();
      changed = false;
    }
    return last_image;
  }
  void Point(std::string event) {
    if (recording) points.push_back({std::move(event), Durable()});
  }
};

class PlSequentialFile final : public SequentialFile {
 public:
  PlSequentialFile(std::string path, std::shared_ptr<Core> core, std::shared_ptr<PlFile> file)
      : path_(std::move(path)), core_(std::move(core)), file_(std::move(file)),
        generation_(core_->generation) {}

  Result<std::string_view> Read(size_t n, char* scratch) override {
    std::lock_guard<std::mutex> lock(core_->mu);
    if (core_->generation != generation_) return Err(PowerLost(path_));
    size_t start = static_cast<size_t>(std::min<uint64_t>(pos_, file_->data.size()));
    size_t got = std::min(n, file_->data.size() - start);
    std::copy_n(file_->data.data() + start, got, scratch);
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
  const std::shared_ptr<Core> core_;
  const std::shared_ptr<PlFile> file_;
  const uint64_t generation_;
  uint64_t pos_ = 0;
};

class PlRandomAccessFile final : public RandomAccessFile {
 public:
  PlRandomAccessFile(std::string path, std::shared_ptr<Core> core, std::shared_ptr<PlFile> file)
      : path_(std::move(path)), core_(std::move(core)), file_(std::move(file)),
        generation_(core_->generation), size_(file_->data.size()) {}

  Result<std::string_view> Read(uint64_t offset, size_t n, char* scratch) const override {
    std::lock_guard<std::mutex> lock(core_->mu);
    if (core_->generation != generation_) return Err(PowerLost(path_));
    uint64_t size = file_->data.size();
    size_t got = offset >= size ? 0 : static_cast<size_t>(std::min<uint64_t>(n, size - offset));
    std::copy_n(file_->data.data() + offset, got, scratch);
    return std::string_view(scratch, got);
  }
  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const std::shared_ptr<Core> core_;
  const std::shared_ptr<PlFile> file_;
  const uint64_t generation_;
  const uint64_t size_;
};

class PlWritableFile final : public WritableFile {
 public:
  PlWritableFile(std::string path, std::shared_ptr<Core> core, std::shared_ptr<PlFile> file)
      : path_(std::move(path)), core_(std::move(core)), file_(std::move(file)),
        generation_(core_->generation) {}

  Status Append(std::string_view data) override {
    std::lock_guard<std::mutex> lock(core_->mu);
    NUTCHFS_RETURN_IF_ERROR(CheckOpen("append"));
    file_->data.append(data);
    return Status::OK();
  }
  Status Flush() override {
    std::lock_guard<std::mutex> lock(core_->mu);
    return CheckOpen("flush");
  }
  Status Sync() override {
    std::lock_guard<std::mutex> lock(core_->mu);
    NUTCHFS_RETURN_IF_ERROR(CheckOpen("sync"));
    if (file_->synced == nullptr || *file_->synced != file_->data) {
      file_->synced = std::make_shared<const std::string>(file_->data);
      core_->changed = true;
    }
    core_->Point("sync " + path_);
    return Status::OK();
  }
  Status Close() override {
    closed_ = true;
    return Status::OK();
  }
  const std::string& path() const override { return path_; }

 private:
  // REQUIRES: core_->mu held.
  Status CheckOpen(const char* op) const {
    if (core_->generation != generation_) return PowerLost(path_);
    if (closed_) return Status::IOError(std::string(op) + " of closed file " + path_);
    return Status::OK();
  }

  const std::string path_;
  const std::shared_ptr<Core> core_;
  const std::shared_ptr<PlFile> file_;
  const uint64_t generation_;
  bool closed_ = false;
};

class PowerLossEnvImpl final : public PowerLossEnv {
 public:
  PowerLossEnvImpl() = default;
  explicit PowerLossEnvImpl(const DurableImage& image) {
    std::map<const DurableImage::File*, std::shared_ptr<PlFile>> files;
    core_->root = Thaw(*image.root, &files);
  }

  void LosePower() override {
    std::lock_guard<std::mutex> lock(core_->mu);
    std::map<const DurableImage::File*, std::shared_ptr<PlFile>> files;
    core_->root = Thaw(*core_->Durable()->root, &files);
    ++core_->generation;
  }
  void RecordCrashPoints(bool on) override {
    std::lock_guard<std::mutex> lock(core_->mu);
    core_->recording = on;
  }
  std::vector<CrashPoint> TakeCrashPoints() override {
    std::lock_guard<std::mutex> lock(core_->mu);
    return std::exchange(core_->points, {});
  }
  std::shared_ptr<const DurableImage> Durable() override {
    std::lock_guard<std::mutex> lock(core_->mu);
    return core_->Durable();
  }

  Result<std::unique_ptr<SequentialFile>> NewSequentialFile(const std::string& path) override {
    std::lock_guard<std::mutex> lock(core_->mu);
    NUTCHFS_ASSIGN_OR_RETURN(auto file, ExistingFile(path));
    return std::make_unique<PlSequentialFile>(path, core_, std::move(file));
  }
  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(const std::string& path) override {
    std::lock_guard<std::mutex> lock(core_->mu);
    NUTCHFS_ASSIGN_OR_RETURN(auto file, ExistingFile(path));
    return std::make_unique<PlRandomAccessFile>(path, core_, std::move(file));
  }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override;
  Status CreateExclusive(const std::string& path, std::string_view contents) override;

  bool FileExists(const std::string& path) override {
    std::lock_guard<std::mutex> lock(core_->mu);
    auto slot = SlotOf(path);
    return slot && (slot->parent == nullptr || slot->node() != nullptr);
  }
  Result<uint64_t> GetFileSize(const std::string& path) override {
    std::lock_guard<std::mutex> lock(core_->mu);
    NUTCHFS_ASSIGN_OR_RETURN(auto file, ExistingFile(path));
    return static_cast<uint64_t>(file->data.size());
  }
  Result<std::vector<std::string>> GetChildren(const std::string& dir) override {
    std::lock_guard<std::mutex> lock(core_->mu);
    NUTCHFS_ASSIGN_OR_RETURN(PlDir * d, ExistingDir(dir));
    std::vector<std::string> names;
    for (const auto& [name, node] : d->live) names.push_back(name);
    return names;
  }
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status RemoveFile(const std::string& path) override;
  Status CreateDirs(const std::string& dir) override;
  Status RemoveDirRecursively(const std::string& dir) override;
  Status SyncDir(const std::string& dir) override {
    std::lock_guard<std::mutex> lock(core_->mu);
    NUTCHFS_ASSIGN_OR_RETURN(PlDir * d, ExistingDir(dir));
    if (d->durable != d->live) {
      d->durable = d->live;
      core_->changed = true;
    }
    core_->Point("sync directory " + dir);
    return Status::OK();
  }

 private:
  // A directory entry: the live directory holding it (null: the path is "/") and its name.
  struct Slot {
    PlDir* parent = nullptr;
    std::string name;
    const Node* node() const {
      if (parent == nullptr) return nullptr;
      auto it = parent->live.find(name);
      return it == parent->live.end() ? nullptr : &it->second;
    }
  };

  // The slot of path; NotFound when a parent is missing, IOError when it is a file.
  // REQUIRES: mu held (for this and every helper below).
  Result<Slot> SlotOf(const std::string& path) {
    NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> parts, Split(path));
    if (parts.empty()) return Slot{};
    PlDir* dir = core_->root.get();
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      auto it = dir->live.find(parts[i]);
      if (it == dir->live.end()) return Err(NoSuchFile(path));
      dir = AsDir(it->second);
      if (dir == nullptr) return Err(Status::IOError(path + ": not a directory"));
    }
    return Slot{dir, parts.back()};
  }
  Result<std::shared_ptr<PlFile>> ExistingFile(const std::string& path) {
    NUTCHFS_ASSIGN_OR_RETURN(Slot slot, SlotOf(path));
    if (slot.parent == nullptr) return Err(Status::IOError(path + ": is a directory"));
    const Node* node = slot.node();
    if (node == nullptr) return Err(NoSuchFile(path));
    auto file = AsFile(*node);
    if (file == nullptr) return Err(Status::IOError(path + ": is a directory"));
    return file;
  }
  Result<PlDir*> ExistingDir(const std::string& path) {
    NUTCHFS_ASSIGN_OR_RETURN(Slot slot, SlotOf(path));
    if (slot.parent == nullptr) return core_->root.get();
    const Node* node = slot.node();
    if (node == nullptr) return Err(NoSuchFile(path));
    PlDir* dir = AsDir(*node);
    if (dir == nullptr) return Err(Status::IOError(path + ": not a directory"));
    return dir;
  }
  // The slot where a file may be created or replaced at path.
  Result<Slot> FileSlot(const std::string& path) {
    NUTCHFS_ASSIGN_OR_RETURN(Slot slot, SlotOf(path));
    const Node* node = slot.node();
    if (slot.parent == nullptr || (node != nullptr && AsDir(*node) != nullptr)) {
      return Err(Status::IOError(path + ": is a directory"));
    }
    return slot;
  }
  Status RenameDir(const std::string& from, const std::string& to, const Slot& src);
  void RecordRename(const std::string& event, const Slot& src, const Slot& dst);

  const std::shared_ptr<Core> core_ = std::make_shared<Core>();
};

Result<std::unique_ptr<WritableFile>> PowerLossEnvImpl::NewWritableFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(core_->mu);
  NUTCHFS_ASSIGN_OR_RETURN(Slot slot, FileSlot(path));
  Node& node = slot.parent->live[slot.name];
  std::shared_ptr<PlFile> file = AsFile(node);
  if (file == nullptr) {
    file = std::make_shared<PlFile>();
    node = file;
  }
  file->data.clear();  // O_TRUNC: the same inode, its synced bytes stay until the next sync
  return std::make_unique<PlWritableFile>(path, core_, std::move(file));
}

Status PowerLossEnvImpl::CreateExclusive(const std::string& path, std::string_view contents) {
  std::lock_guard<std::mutex> lock(core_->mu);
  NUTCHFS_ASSIGN_OR_RETURN(Slot slot, SlotOf(path));
  if (slot.parent == nullptr || slot.node() != nullptr) return Status::Busy(path + " already exists");
  auto data = std::make_shared<const std::string>(contents);
  slot.parent->live[slot.name] = std::make_shared<PlFile>(PlFile{*data, data});
  return Status::OK();
}

Status PowerLossEnvImpl::RemoveFile(const std::string& path) {
  std::lock_guard<std::mutex> lock(core_->mu);
  NUTCHFS_ASSIGN_OR_RETURN(Slot slot, SlotOf(path));
  const Node* node = slot.node();
  if (slot.parent == nullptr || (node != nullptr && AsDir(*node) != nullptr)) {
    return Status::IOError(path + ": is a directory");
  }
  if (node == nullptr) return NoSuchFile(path);
  slot.parent->live.erase(slot.name);
  return Status::OK();
}

Status PowerLossEnvImpl::CreateDirs(const std::string& dir) {
  std::lock_guard<std::mutex> lock(core_->mu);
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> parts, Split(dir));
  PlDir* at = core_->root.get();
  std::string so_far;
  for (const std::string& part : parts) {
    so_far += "/" + part;
    Node& node = at->live[part];
    if (std::holds_alternative<std::shared_ptr<PlFile>>(node) && AsFile(node) == nullptr) {
      node = std::make_shared<PlDir>();  // the entry was just made by operator[]
    }
    at = AsDir(node);
    if (at == nullptr) {
      return Status::IOError("create directory " + dir + ": " + so_far + " is a file");
    }
  }
  return Status::OK();
}

Status PowerLossEnvImpl::RemoveDirRecursively(const std::string& dir) {
  std::lock_guard<std::mutex> lock(core_->mu);
  auto slot = SlotOf(dir);
  if (!slot) return slot.error().IsNotFound() ? Status::OK() : slot.error();
  if (slot->parent == nullptr) {
    core_->root->live.clear();
  } else {
    slot->parent->live.erase(slot->name);
  }
  return Status::OK();
}

Status PowerLossEnvImpl::RenameFile(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> lock(core_->mu);
  const std::string what = "rename " + from + " to " + to;
  NUTCHFS_ASSIGN_OR_RETURN(Slot src, SlotOf(from).map_error([&](Status s) {
    return s.WithContext("rename");
  }));
  const Node* node = src.node();
  if (src.parent == nullptr || (node != nullptr && AsDir(*node) != nullptr)) {
    return RenameDir(from, to, src).WithContext(what);
  }
  if (node == nullptr) return NoSuchFile(from).WithContext("rename");
  NUTCHFS_ASSIGN_OR_RETURN(Slot dst, FileSlot(to).map_error([&](Status s) {
    return s.WithContext(what);
  }));
  if (dst.parent == src.parent && dst.name == src.name) return Status::OK();
  Node moved = *node;
  src.parent->live.erase(src.name);
  dst.parent->live[dst.name] = std::move(moved);
  RecordRename(what, src, dst);
  return Status::OK();
}

// REQUIRES: mu held; from is a directory (or "/").
Status PowerLossEnvImpl::RenameDir(const std::string& from, const std::string& to,
                                   const Slot& src) {
  if (from == to) return Status::OK();
  if (src.parent == nullptr || to.starts_with(from + "/")) {
    return Status::IOError("target inside source");
  }
  NUTCHFS_ASSIGN_OR_RETURN(Slot dst, SlotOf(to));
  if (dst.parent == nullptr) return Status::IOError(to + ": directory not empty");
  if (const Node* there = dst.node()) {
    PlDir* d = AsDir(*there);
    if (d == nullptr) return Status::IOError(to + ": not a directory");
    if (!d->live.empty()) return Status::IOError(to + ": directory not empty");
  }
  Node moved = *src.node();
  src.parent->live.erase(src.name);
  dst.parent->live[dst.name] = std::move(moved);
  RecordRename("rename " + from + " to " + to, src, dst);
  return Status::OK();
}

// A crash point before the directories are synced, and one where the rename alone
// reached the disk. REQUIRES: mu held; the rename done in the live tables.
void PowerLossEnvImpl::RecordRename(const std::string& event, const Slot& src, const Slot& dst) {
  if (!core_->recording) return;
  core_->Point(event);
  auto saved_src = src.parent->durable;
  auto saved_dst = dst.parent->durable;
  src.parent->durable.erase(src.name);
  dst.parent->durable[dst.name] = dst.parent->live[dst.name];
  core_->points.push_back({event + ", on disk before its directory was synced", core_->Freeze()});
  src.parent->durable = std::move(saved_src);
  dst.parent->durable = std::move(saved_dst);
}

}  // namespace

std::unique_ptr<PowerLossEnv> NewPowerLossEnv() { return std::make_unique<PowerLossEnvImpl>(); }

std::unique_ptr<PowerLossEnv> NewPowerLossEnv(const DurableImage& image) {
  return std::make_unique<PowerLossEnvImpl>(image);
}

}  // namespace nutchfs
