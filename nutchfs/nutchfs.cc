#include "nutchfs/nutchfs.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "nutchfs/arrival_watch.h"
#include "nutchfs/clock.h"
#include "nutchfs/lock_file.h"
#include "nutchfs/publish.h"

namespace nutchfs {
namespace {

using std::chrono::milliseconds;

constexpr std::string_view kLockDir = ".locks";
constexpr milliseconds kFirstPause{1};
constexpr milliseconds kMaxPause{50};
// Every this many polls WaitFor also lists the directory: on NFS a readdir revalidates
// the directory, which a stat answered from a cached "no such file" does not.
constexpr int kListEvery = 16;

const Status& StatusOf(const Status& s) { return s; }
template <typename T>
Status StatusOf(const Result<T>& r) {
  return r ? Status::OK() : r.error();
}

// Runs fn (returning Status or Result) again after an IOError, up to config.retries
// more times, pausing 50 ms, then twice as long each time (at most 5 s), and none once
// it has been failing for config.retry_window_ms. Only for operations that are
// idempotent as a whole.
template <typename Fn>
auto WithRetries(const ClusterConfig& config, std::string_view what, Fn&& fn) -> decltype(fn()) {
  const auto start = std::chrono::steady_clock::now();
  milliseconds pause{50};
  for (int attempt = 0;; ++attempt) {
    auto r = fn();
    Status s = StatusOf(r);
    const auto failing = std::chrono::steady_clock::now() - start;
    if (s.ok() || !s.IsIOError() || attempt >= config.retries ||
        failing >= milliseconds(config.retry_window_ms)) {
      return r;
    }
    spdlog::warn("{}: {}; retrying in {} ms", what, s.ToString(), pause.count());
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, milliseconds(5000));
  }
}


std::string Join(const std::string& root, std::string_view rel) {
  return root == "/" ? "/" + std::string(rel) : root + "/" + std::string(rel);
}

bool Contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}


}  // namespace

bool MeansUnreachable(const Status& s) { return s.IsIOError() || s.IsTimeout() || s.IsRefused(); }

Result<std::unique_ptr<NutchFs>> NutchFs::Open(ClusterConfig config, std::string own_machine,
                                               NutchFsOptions options) {
  if (!own_machine.empty() && config.FindMachine(own_machine) == nullptr) {
    return Err(
        Status::InvalidArgument("machine '" + own_machine + "' is not in " + config.file.path()));
  }
  return std::unique_ptr<NutchFs>(new NutchFs(std::move(config), std::move(own_machine), options));
}

NutchFs::NutchFs(ClusterConfig config, std::string own_machine, NutchFsOptions options)
    : config_(std::move(config)),
      own_machine_(std::move(own_machine)),
      options_(options),
      envs_(config_, own_machine_, options.env) {}

Result<const GroupConfig*> NutchFs::GroupOf(const NutchFile& file) const {
  NUTCHFS_RETURN_IF_ERROR(file.Validate());
  const GroupConfig* group = config_.FindGroup(file.group);
  if (group == nullptr) {
    return Err(Status::InvalidArgument("share group '" + file.group + "' of " + file.ToString() +
                                       " is not in " + config_.file.path()));
  }
  return group;
}

Result<NutchFs::Place> NutchFs::PlaceAt(const MachineConfig& m, const NutchFile& file) {
  NUTCHFS_ASSIGN_OR_RETURN(Env * env, envs_.EnvFor(m));
  return Place{&m, env, Join(m.location.root, file.RelativePath())};
}

// This machine if it holds the group; else the group's first machine that is not left out
// and can be connected to. A connection that fails leaves that machine out when the group
// has others to view it at.
Result<NutchFs::Place> NutchFs::ViewOf(const NutchFile& file) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(file));
  if (Contains(group->machines, own_machine_)) {
    return PlaceAt(*config_.FindMachine(own_machine_), file);
  }
  std::optional<Status> failed;
  for (const std::string& name : group->machines) {
    if (group->machines.size() > 1 && IsUnreachable(name)) continue;
    auto at = PlaceAt(*config_.FindMachine(name), file);
    if (at || group->machines.size() == 1 || !MeansUnreachable(at.error())) return at;
    MarkUnreachable(name, at.error());
    failed = at.error();
  }
  return Err(Status::IOError("no machine of share group " + group->name + " can be reached" +
                             (failed ? " (the last: " + failed->ToString() + ")" : "")));
}

std::vector<std::string> NutchFs::Unreachable() const {
  std::lock_guard<std::mutex> lock(unreachable_mu_);
  return unreachable_;
}

bool NutchFs::IsUnreachable(std::string_view machine) const {
  std::lock_guard<std::mutex> lock(unreachable_mu_);
  return Contains(unreachable_, machine);
}

void NutchFs::MarkUnreachable(const std::string& machine, const Status& why) {
  {
    std::lock_guard<std::mutex> lock(unreachable_mu_);
    if (Contains(unreachable_, machine)) return;
    unreachable_.push_back(machine);
  }
  spdlog::warn("machine {} cannot be reached ({}); it is left out from now on", machine,
               why.ToString());
}

Result<int> NutchFs::WriteEach(const GroupConfig& group,
                               const std::function<Status(const std::string&)>& write) {
  int done = 0;
  std::optional<Status> failed;
  for (const std::string& name : group.machines) {
    if (IsUnreachable(name)) continue;
    Status s = write(name);
    if (s.ok()) {
      ++done;
      continue;
    }
    if (!options_.skip_unreachable || name == own_machine_ || !MeansUnreachable(s)) {
      return Err(s);
    }
    MarkUnreachable(name, s);
    failed = s;
  }
  if (done == 0 && failed) return Err(*failed);
  return done;
}

Result<NutchFs::Located> NutchFs::Locate(const NutchFile& file) {
  NUTCHFS_ASSIGN_OR_RETURN(Place at, ViewOf(file));
  return Located{at.env, at.path};
}

Result<NutchFs::Located> NutchFs::LocateAt(const NutchFile& file, const std::string& machine) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(file));
  if (!Contains(group->machines, machine)) {
    return Err(Status::InvalidArgument("machine '" + machine + "' does not hold share group '" +
                                       group->name + "'"));
  }
  NUTCHFS_ASSIGN_OR_RETURN(Place at, PlaceAt(*config_.FindMachine(machine), file));
  return Located{at.env, at.path};
}

Result<FileInfo> NutchFs::Put(const std::string& local_path, const NutchFile& file) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(file));
  std::optional<FileInfo> first;
  NUTCHFS_RETURN_IF_ERROR(StatusOf(WriteEach(*group, [&](const std::string& name) -> Status {
    NUTCHFS_ASSIGN_OR_RETURN(FileInfo info, PutAt(local_path, file, name));
    if (first && *first != info) {
      return Status::InvalidArgument("put " + file.ToString() + " to machine " + name + ": " +
                                     local_path + " changed during the put");
    }
    first = info;
    return Status::OK();
  })));
  if (!first) {
    return Err(Status::IOError("put " + file.ToString() + ": every machine of share group " +
                               group->name + " is left out as unreachable"));
  }
  return *first;
}

Result<FileInfo> NutchFs::PutAt(const std::string& local_path, const NutchFile& file,
                                std::string_view machine) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(file));
  if (!Contains(group->machines, machine)) {
    return Err(Status::InvalidArgument("share group '" + group->name + "' of " + file.ToString() +
                                       " is not held by machine " + std::string(machine)));
  }
  const std::string what = "put " + file.ToString() + " to machine " + std::string(machine);
  NUTCHFS_ASSIGN_OR_RETURN(Place to, PlaceAt(*config_.FindMachine(machine), file));
  auto info = WithRetries(config_, what, [&] {
    return PublishFile(envs_.local(), local_path, *to.env, to.path, options_.verify_checksum);
  });
  if (!info) return Err(info.error().WithContext(what));
  return info;
}

Result<FileInfo> NutchFs::CopyAt(const NutchFile& file, std::string_view from,
                                 std::string_view to) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(file));
  for (std::string_view m : {from, to}) {
    if (!Contains(group->machines, m)) {
      return Err(Status::InvalidArgument("share group '" + group->name + "' of " +
                                         file.ToString() + " is not held by machine " +
                                         std::string(m)));
    }
  }
  const std::string what = "copy " + file.ToString() + " from machine " + std::string(from) +
                           " to machine " + std::string(to);
  NUTCHFS_ASSIGN_OR_RETURN(Place src, PlaceAt(*config_.FindMachine(from), file));
  NUTCHFS_ASSIGN_OR_RETURN(Place dst, PlaceAt(*config_.FindMachine(to), file));
  auto info = WithRetries(config_, what, [&] {
    return PublishFile(*src.env, src.path, *dst.env, dst.path, options_.verify_checksum);
  });
  if (!info) return Err(info.error().WithContext(what));
  return info;
}

Status NutchFs::Move(const std::string& local_path, const NutchFile& file) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(file));
  std::optional<Place> local;
  NUTCHFS_ASSIGN_OR_RETURN(int copied, WriteEach(*group, [&](const std::string& name) -> Status {
    NUTCHFS_ASSIGN_OR_RETURN(Place to, PlaceAt(*config_.FindMachine(name), file));
    if (!local && to.env == &envs_.local()) {
      local = to;
      return Status::OK();
    }
    return StatusOf(PutAt(local_path, file, name));
  }));
  if (copied == 0) {
    return Status::IOError("move " + file.ToString() + ": every machine of share group " +
                           group->name + " is left out as unreachable");
  }
  if (local) {
    Status renamed = PublishByRename(envs_.local(), local_path, local->path);
    if (renamed.ok() || !envs_.local().FileExists(local_path)) return renamed;
    // Not renamed (another file system, say): copied like the others.
    NUTCHFS_RETURN_IF_ERROR(StatusOf(PutAt(local_path, file, local->machine->name)));
  }
  return envs_.local().RemoveFile(local_path);
}

Status NutchFs::WaitFor(const NutchFile& file, std::string_view sender,
                        std::chrono::milliseconds timeout) {
  auto arrived = WaitForUnless(file, {}, sender, timeout);
  return arrived ? Status::OK() : arrived.error();
}

Result<std::optional<NutchFile>> NutchFs::FirstPresent(const std::vector<NutchFile>& unless) {
  for (const NutchFile& f : unless) {
    NUTCHFS_ASSIGN_OR_RETURN(Place at, ViewOf(f));
    if (!at.env->FileExists(at.path)) continue;
    auto names = at.env->GetChildren(at.path);
    if (!names) return f;  // a file
    std::sort(names->begin(), names->end());
    for (const std::string& name : *names) {
      if (!IsHiddenName(name)) return NutchFile{f.db, f.group, f.name + "/" + name};
    }
  }
  return std::nullopt;
}

Result<std::optional<NutchFile>> NutchFs::WaitForUnless(const NutchFile& file,
                                                        const std::vector<NutchFile>& unless,
                                                        std::string_view sender,
                                                        std::chrono::milliseconds timeout,
                                                        const std::function<Status()>& meanwhile) {
  for (const NutchFile& f : unless) {
    auto group = GroupOf(f);
    if (!group) return Err(group.error());
  }
  NUTCHFS_ASSIGN_OR_RETURN(Place at, ViewOf(file));
  const auto start = std::chrono::steady_clock::now();
  const std::string dir = DirOf(at.path);
  const std::string base(file.BaseName());
  ArrivalWatch watch(dir, at.env->capabilities().inotify);
  milliseconds pause = kFirstPause;
  for (int poll = 1;; ++poll) {
    if (at.env->FileExists(at.path)) return std::nullopt;
    if (poll % kListEvery == 0) {
      auto names = at.env->GetChildren(dir);
      if (names && Contains(*names, base)) return std::nullopt;
    }
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<NutchFile> given_up, FirstPresent(unless));
    if (given_up) return given_up;
    if (meanwhile) NUTCHFS_RETURN_IF_ERROR(meanwhile());
    auto waited =
        std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
    if (waited >= timeout) {
      return Err(Status::Timeout("timed out after " + std::to_string(waited.count()) +
                             " ms waiting for " + file.ToString() + " at machine " +
                             at.machine->name + " (" + at.path + "), to be sent by " +
                             std::string(sender)));
    }
    watch.Wait(std::min(pause, timeout - waited));
    pause = std::min(pause * 2, kMaxPause);
  }
}

Result<FileInfo> NutchFs::Get(const NutchFile& file, const std::string& local_path) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(file));
  // The local path is the caller's: its directory is not made here.
  if (!envs_.local().FileExists(DirOf(local_path))) {
    return Err(Status::NotFound("get " + file.ToString() + ": directory " + DirOf(local_path) +
                                " of " + local_path + " does not exist"));
  }
  NUTCHFS_ASSIGN_OR_RETURN(Place view, ViewOf(file));
  std::vector<std::string> order{view.machine->name};
  for (const std::string& name : group->machines) {
    if (name != view.machine->name && !IsUnreachable(name)) order.push_back(name);
  }
  // A machine other than the view that cannot be reached is left out, as ViewOf leaves
  // out a home: the file is looked for at the others.
  std::string left_out;
  for (const std::string& name : order) {
    const std::string what = "get " + file.ToString() + " from machine " + name;
    auto from = PlaceAt(*config_.FindMachine(name), file);
    auto info = from ? Result<FileInfo>(Err(Status::NotFound(what)))
                     : Result<FileInfo>(Err(from.error().WithContext(what)));
    if (from && from->env->FileExists(from->path)) {
      info = WithRetries(config_, what, [&] {
        return PublishFile(*from->env, from->path, envs_.local(), local_path,
                           options_.verify_checksum);
      });
      if (!info) info = Err(info.error().WithContext(what));
    }
    if (info || (!info.error().IsNotFound() &&
                 (name == view.machine->name || !MeansUnreachable(info.error())))) {
      return info;
    }
    if (!info.error().IsNotFound()) {
      MarkUnreachable(name, info.error());
      left_out += (left_out.empty() ? "" : ", ") + name;
    }
  }
  return Err(Status::NotFound(file.ToString() + " is at none of the machines of share group " +
                              group->name + (left_out.empty() ? "" : " that can be reached (not: " +
                                                                         left_out + ")")));
}

Result<FileInfo> NutchFs::Stat(const NutchFile& file) {
  NUTCHFS_ASSIGN_OR_RETURN(Place at, ViewOf(file));
  auto info = DigestFile(*at.env, at.path);
  if (!info) return Err(info.error().WithContext("machine " + at.machine->name));
  return info;
}

Status NutchFs::Delete(const NutchFile& file) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(file));
  int removed = 0;
  NUTCHFS_RETURN_IF_ERROR(StatusOf(WriteEach(*group, [&](const std::string& name) -> Status {
    NUTCHFS_ASSIGN_OR_RETURN(Place at, PlaceAt(*config_.FindMachine(name), file));
    const std::string what = "delete " + file.ToString() + " at machine " + name;
    Status s = WithRetries(config_, what, [&] { return at.env->RemoveFile(at.path); });
    if (s.ok()) ++removed;
    return s.ok() || s.IsNotFound() ? Status::OK() : s.WithContext(what);
  })));
  if (removed == 0) {
    return Status::NotFound(file.ToString() + " is at none of the machines of share group " +
                            group->name);
  }
  return Status::OK();
}

Status NutchFs::DeleteDir(const NutchFile& dir) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(dir));
  return StatusOf(WriteEach(*group, [&](const std::string& name) -> Status {
    NUTCHFS_ASSIGN_OR_RETURN(Place at, PlaceAt(*config_.FindMachine(name), dir));
    const std::string what = "delete directory " + dir.ToString() + " at machine " + name;
    Status s =
        WithRetries(config_, what, [&] { return at.env->RemoveDirRecursively(at.path); });
    return s.ok() ? s : s.WithContext(what);
  }));
}

Status NutchFs::Rename(const NutchFile& from, const NutchFile& to) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(from));
  NUTCHFS_RETURN_IF_ERROR(to.Validate());
  if (from.db != to.db || from.group != to.group) {
    return Status::InvalidArgument("rename " + from.ToString() + " to " + to.ToString() +
                                   ": both must be in the same db and share group");
  }
  int renamed = 0;
  NUTCHFS_RETURN_IF_ERROR(StatusOf(WriteEach(*group, [&](const std::string& name) -> Status {
    NUTCHFS_ASSIGN_OR_RETURN(Place src, PlaceAt(*config_.FindMachine(name), from));
    if (!src.env->FileExists(src.path)) return Status::OK();
    const std::string dest = Join(src.machine->location.root, to.RelativePath());
    const std::string what = "rename " + from.ToString() + " at machine " + name;
    Status s = src.env->CreateDirs(DirOf(dest));
    if (s.ok()) s = src.env->RenameFile(src.path, dest);
    if (s.ok()) {
      s = src.env->SyncDir(DirOf(dest));
      if (s.IsNotFound()) s = Status::OK();  // renamed, then removed with its directory
    }
    if (!s.ok()) return s.WithContext(what);
    ++renamed;
    return Status::OK();
  })));
  if (renamed == 0) {
    return Status::NotFound(from.ToString() + " is at none of the machines of share group " +
                            group->name);
  }
  return Status::OK();
}

Status NutchFs::ListInto(Env& env, const std::string& dir, const std::string& prefix,
                         std::vector<std::string>* names) {
  auto children = env.GetChildren(dir);
  if (!children) return children.error().IsNotFound() ? Status::OK() : children.error();
  for (const std::string& child : *children) {
    if (IsHiddenName(child)) continue;
    // Env has no file type query: a child that lists is a directory.
    auto below = env.GetChildren(dir + "/" + child);
    if (below) {
      NUTCHFS_RETURN_IF_ERROR(ListInto(env, dir + "/" + child, prefix + child + "/", names));
    } else {
      names->push_back(prefix + child);
    }
  }
  return Status::OK();
}

Result<std::vector<std::string>> NutchFs::List(std::string_view db, std::string_view group,
                                               std::string_view dir) {
  NutchFile probe{std::string(db), std::string(group), dir.empty() ? "x" : std::string(dir)};
  NUTCHFS_ASSIGN_OR_RETURN(Place at, ViewOf(probe));
  const std::string path = dir.empty() ? DirOf(at.path) : at.path;
  const std::string prefix = dir.empty() ? "" : std::string(dir) + "/";
  std::vector<std::string> names;
  Status s = ListInto(*at.env, path, prefix, &names);
  if (!s.ok()) return Err(s.WithContext("list at machine " + at.machine->name));
  std::sort(names.begin(), names.end());
  return names;
}

Result<NutchFs::Place> NutchFs::LockPlace(const NutchFile& lock) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(lock));
  if (lock.name.find('/') != std::string::npos) {
    return Err(Status::InvalidArgument("lock name '" + lock.name + "' must be one component"));
  }
  NutchFile file{lock.db, lock.group, std::string(kLockDir) + "/" + lock.name};
  return PlaceAt(*config_.FindMachine(group->machines.front()), file);
}

Result<HeldLock> NutchFs::Lock(const NutchFile& lock) {
  NUTCHFS_ASSIGN_OR_RETURN(Place at, LockPlace(lock));
  HeldLock held{lock, CurrentProcess(own_machine_)};
  Status s = AcquireLockFile(*at.env, at.path, held.owner);
  if (!s.ok()) return Err(s.WithContext("machine " + at.machine->name));
  return held;
}

Status NutchFs::Unlock(const HeldLock& held) {
  NUTCHFS_ASSIGN_OR_RETURN(Place at, LockPlace(held.lock));
  return ReleaseLockFile(*at.env, at.path, held.owner).WithContext("machine " + at.machine->name);
}

Result<std::vector<LockInfo>> NutchFs::ListLocks(std::string_view db, std::string_view group) {
  NutchFile probe{std::string(db), std::string(group), "x"};
  NUTCHFS_ASSIGN_OR_RETURN(Place at, LockPlace(probe));
  const std::string dir = DirOf(at.path);
  auto names = at.env->GetChildren(dir);
  if (!names && names.error().IsNotFound()) return std::vector<LockInfo>();
  if (!names) return Err(names.error().WithContext("machine " + at.machine->name));
  std::sort(names->begin(), names->end());
  std::vector<LockInfo> locks;
  for (const std::string& name : *names) {
    if (IsHiddenName(name)) continue;
    LockInfo info{{probe.db, probe.group, name}, at.machine->name, dir + "/" + name, LockOwner()};
    info.owner = ReadLockFile(*at.env, info.path);
    if (!info.owner && info.owner.error().IsNotFound()) continue;  // released meanwhile
    locks.push_back(std::move(info));
  }
  return locks;
}

Result<std::string> NutchFs::BreakLock(const NutchFile& lock, bool force) {
  NUTCHFS_ASSIGN_OR_RETURN(Place at, LockPlace(lock));
  auto reason = BreakLockFile(*at.env, at.path, CurrentProcess(own_machine_), NowMs(),
                              config_.lock_lease_ms, force);
  if (!reason) return Err(reason.error().WithContext("machine " + at.machine->name));
  return reason;
}

Result<LeaseRequest> NutchFs::LeaseRequestFor(const NutchFile& lock) {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(lock));
  if (lock.name.find('/') != std::string::npos) {
    return Err(Status::InvalidArgument("lease name '" + lock.name + "' must be one component"));
  }
  LeaseRequest r;
  r.name = lock.name;
  r.what = "lease " + lock.ToString();
  r.me = CurrentProcess(own_machine_);
  r.lease_ms = config_.lock_lease_ms;
  // This machine first when it holds the group: its copy answers without a connection.
  std::vector<std::string> order = group->machines;
  auto own = std::find(order.begin(), order.end(), own_machine_);
  if (own != order.end()) std::rotate(order.begin(), own, own + 1);
  for (const std::string& name : order) {
    const MachineConfig& m = *config_.FindMachine(name);
    LeasePlace p;
    p.machine = name;
    p.dir = Join(m.location.root, NutchFile{lock.db, lock.group, std::string(kLockDir)}.RelativePath());
    if (IsUnreachable(name)) {
      p.why = Status::IOError("machine " + name + " is left out as unreachable");
    } else {
      auto env = envs_.RawEnvFor(m);
      if (env) p.env = *env;
      if (!env) p.why = env.error();
    }
    r.places.push_back(std::move(p));
  }
  return r;
}

Result<std::unique_ptr<Lease>> NutchFs::TakeLease(const NutchFile& lock, bool home_may_be_gone) {
  NUTCHFS_ASSIGN_OR_RETURN(LeaseRequest r, LeaseRequestFor(lock));
  // The home comes first in a request: it is the one place that must be reached.
  const std::string& home = config_.FindGroup(lock.group)->machines.front();
  auto it = std::find_if(r.places.begin(), r.places.end(),
                         [&](const LeasePlace& p) { return p.machine == home; });
  std::rotate(r.places.begin(), it, it + 1);
  r.home_may_be_gone = home_may_be_gone;
  return nutchfs::TakeLease(std::move(r));
}

Result<std::optional<LockOwner>> NutchFs::ReadLease(const NutchFile& lock) {
  NUTCHFS_ASSIGN_OR_RETURN(LeaseRequest r, LeaseRequestFor(lock));
  std::optional<Status> failed;
  for (const LeasePlace& p : r.places) {
    if (p.env == nullptr) continue;
    auto record = ReadLeaseRecord(*p.env, p.dir, r.name);
    if (record || !MeansUnreachable(record.error())) return record;
    failed = record.error().WithContext("machine " + p.machine);
  }
  return Err(failed.value_or(Status::IOError(r.what + ": no machine of its group can be reached")));
}

Result<std::string> NutchFs::BreakLease(const NutchFile& lock) {
  NUTCHFS_ASSIGN_OR_RETURN(LeaseRequest r, LeaseRequestFor(lock));
  r.home_may_be_gone = true;
  return nutchfs::BreakLease(std::move(r));
}

Result<std::string> NutchFs::LocalPath(const NutchFile& file) const {
  NUTCHFS_ASSIGN_OR_RETURN(const GroupConfig* group, GroupOf(file));
  if (own_machine_.empty() || !Contains(group->machines, own_machine_)) {
    return Err(Status::InvalidArgument(
        "share group '" + group->name + "' is not held by " +
        (own_machine_.empty() ? std::string("this process") : "machine " + own_machine_)));
  }
  return Join(config_.FindMachine(own_machine_)->location.root, file.RelativePath());
}

}  // namespace nutchfs
