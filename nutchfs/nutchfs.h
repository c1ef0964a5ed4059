// NutchFs: the shared file namespace seen from one machine of a cluster (or from an
// operator's shell outside it). Files are NutchFiles (db, group, name); the cluster
// config says which machines hold each share group. Every guarantee below is explained
// in docs/NUTCHFS.md.
//
// "This machine" (own_machine) reaches its root directly. The "view" of a group is this
// machine if it holds the group, else the group's first machine (its home); reads,
// listings and waits use the view. Locks always live on the group's home machine.
//
// Owns the Envs it opens to reach other machines (one SFTP session per remote machine,
// kept for its life). Thread-safe: any number of threads may call any method at once.
#ifndef NUTCHFS_NUTCHFS_H_
#define NUTCHFS_NUTCHFS_H_

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/cluster_config.h"
#include "nutchfs/env.h"
#include "nutchfs/file_copy.h"
#include "nutchfs/lease.h"
#include "nutchfs/lock_owner.h"
#include "nutchfs/machine_envs.h"
#include "nutchfs/nutchfile.h"

namespace nutchfs {

struct NutchFsOptions {
  // If set, every machine root and every working file is reached through this Env, not
  // the local file system and SFTP (tests: a memory Env or a FaultEnv). Not owned.
  Env* env = nullptr;
  // Re-read each published copy and compare its SHA-256 before renaming it into place.
  bool verify_checksum = false;
  // A write to a group of several machines (Put, Move, Delete, DeleteDir, Rename) skips a
  // machine other than this one where it still fails after the retries, names it in a
  // warning and leaves it out of every later operation (Unreachable()); it fails only when
  // no machine of the group took it (docs/NUTCHFS.md, "Machines that cannot be reached").
  // The distributed writer's choice; without it the first failing machine fails the write.
  bool skip_unreachable = false;
};

// True for a failure that says a machine cannot be reached now (an I/O error after the
// retries, a timeout, a refused connection) rather than that a request was wrong: what
// leaves a replica out (NutchFsOptions::skip_unreachable).
bool MeansUnreachable(const Status& s);

// A lock this process holds; give it back to Unlock.
struct HeldLock {
  NutchFile lock;
  LockOwner owner;
};

// A lock file as found by ListLocks.
struct LockInfo {
  NutchFile lock;
  std::string machine;      // where the lock file lives (the group's home)
  std::string path;         // on that machine
  Result<LockOwner> owner;  // Corruption when the file is unreadable
};

class NutchFs {
 public:
  // own_machine: this machine's name in config, or empty outside the cluster.
  // InvalidArgument if the name is not in the config.
  static Result<std::unique_ptr<NutchFs>> Open(ClusterConfig config, std::string own_machine,
                                               NutchFsOptions options = {});
  NutchFs(const NutchFs&) = delete;
  NutchFs& operator=(const NutchFs&) = delete;

  const ClusterConfig& config() const { return config_; }
  const NutchFsOptions& options() const { return options_; }
  const std::string& own_machine() const { return own_machine_; }
  // The Env of local working files.
  Env& local_env() { return envs_.local(); }

  // Publishes the working file at local_path as `file` on every machine of its group, by
  // write-temp + sync + check + rename in the destination directory (publish.h). Each
  // location is retried up to config().retries times on IOError. Returns the size and
  // SHA-256 of what was published, for receivers to verify.
  Result<FileInfo> Put(const std::string& local_path, const NutchFile& file);
  // Publishes like Put, at one machine of the file's group only. InvalidArgument if the
  // group does not hold `file` on that machine.
  Result<FileInfo> PutAt(const std::string& local_path, const NutchFile& file,
                         std::string_view machine);
  // Publishes `file` as found at machine `from` at machine `to` (both of its group), by
  // the protocol of Put, with its retries: a replica made from another one.
  Result<FileInfo> CopyAt(const NutchFile& file, std::string_view from, std::string_view to);
  // Publishes the working file at local_path as `file` like Put, then removes it; the
  // caller must have synced it. At one machine of the group reached through
  // local_env() it is renamed into place (PublishByRename, publish.h) rather than
  // copied, where the file systems allow: a slice of many gigabytes is then neither
  // copied nor read back.
  Status Move(const std::string& local_path, const NutchFile& file);
  // Blocks until `file` is present at the view of its group, polling with a backoff of
  // 1 ms doubling to 50 ms. Timeout names the file, the machine waited at and `sender`.
  Status WaitFor(const NutchFile& file, std::string_view sender, std::chrono::milliseconds timeout);
  // Waits like WaitFor, but gives up as soon as one of `unless` is present at its view:
  // a file, or a directory holding a visible file. Returns that file (for a directory,
  // the first visible file in it), or nullopt once `file` is present. `meanwhile`, if
  // given, is called between polls (it paces itself); its error ends the wait.
  Result<std::optional<NutchFile>> WaitForUnless(const NutchFile& file,
                                                 const std::vector<NutchFile>& unless,
                                                 std::string_view sender,
                                                 std::chrono::milliseconds timeout,
                                                 const std::function<Status()>& meanwhile = {});
  // Copies `file` from the view (or, if absent there, from the first machine of the group
  // that has it) to local_path, published there the same way as Put. NotFound if the
  // directory of local_path does not exist (it is not made).
  Result<FileInfo> Get(const NutchFile& file, const std::string& local_path);
  // Size and SHA-256 of `file` at the view.
  Result<FileInfo> Stat(const NutchFile& file);
  // Removes `file` at every machine of its group; NotFound if no machine had it.
  Status Delete(const NutchFile& file);
  // Removes the directory `dir` (a NutchFile naming a directory) and everything below it,
  // temporary files included, at every machine of its group; OK if absent.
  Status DeleteDir(const NutchFile& dir);
  // Renames at every machine of the group that has `from`; atomic at each machine, not
  // across machines. REQUIRES same db and group; NotFound if no machine had `from`.
  Status Rename(const NutchFile& from, const NutchFile& to);
  // Names of the visible files below `dir` ("" for the whole group) at the view, sorted.
  Result<std::vector<std::string>> List(std::string_view db, std::string_view group,
                                        std::string_view dir = "");

  // Takes the exclusive lock `lock` (its name is one component) on the group's home
  // machine. Breaks it first if it is stale by the rule of lock_owner.h that needs no
  // force; Busy naming the holder otherwise. Does not wait.
  Result<HeldLock> Lock(const NutchFile& lock);
  Status Unlock(const HeldLock& held);
  // Every lock of the group, in name order.
  Result<std::vector<LockInfo>> ListLocks(std::string_view db, std::string_view group);
  // Breaks `lock` if the stale-lock rule allows (force: also another host's lock older than
  // config().lock_lease_ms) and says why; Busy with the reason if not.
  Result<std::string> BreakLock(const NutchFile& lock, bool force);

  // Takes the lease lock `lock` (its name one component) at every machine of its group
  // that can be reached, for this process (docs/NUTCHFS.md, "Leases"), with the
  // config's lock_lease_ms. The group's home must be reached unless home_may_be_gone.
  Result<std::unique_ptr<Lease>> TakeLease(const NutchFile& lock, bool home_may_be_gone);
  // The record of the highest epoch of lease `lock` at the first machine of its group (this
  // one first, if it holds the group) that answers; nullopt when there is none.
  Result<std::optional<LockOwner>> ReadLease(const NutchFile& lock);
  // Ends lease `lock` at once (nutchfs/lease.h, BreakLease); says what it ended.
  Result<std::string> BreakLease(const NutchFile& lock);
  // Makes every Env of this NutchFs — local_env() and each machine's — call check before
  // any change to a file, and fail with its error (nutchfs/fenced_env.h). The lease's own
  // renewals go around it. REQUIRES: called once, before other threads use this NutchFs.
  void SetFence(std::function<Status()> check) { envs_.fence().Set(std::move(check)); }

  // The Env and path through which `file` is read at the view of its group (this machine
  // if it holds the group, else the group's home): for readers that open files in place.
  struct Located {
    Env* env;
    std::string path;
  };
  Result<Located> Locate(const NutchFile& file);
  // The same at a given machine of the group (InvalidArgument if it does not hold it):
  // for a command that checks every copy of a group held by several machines.
  Result<Located> LocateAt(const NutchFile& file, const std::string& machine);

  // Path of `file` on this machine, to be read through local_env(). InvalidArgument if
  // there is no own machine or it does not hold the group.
  Result<std::string> LocalPath(const NutchFile& file) const;

  // The machines left out so far: a write failed there (skip_unreachable), or a
  // connection to a group's home failed (its group is then viewed at the next machine).
  std::vector<std::string> Unreachable() const;
  bool IsUnreachable(std::string_view machine) const;
  // Leaves `machine` out of every later operation, with a warning saying why (for a
  // caller that writes to one machine at a time, PutAt, and finds it gone).
  void MarkUnreachable(const std::string& machine, const Status& why);

 private:
  struct Place {
    const MachineConfig* machine;
    Env* env;
    std::string path;
  };

  NutchFs(ClusterConfig config, std::string own_machine, NutchFsOptions options);
  Result<const GroupConfig*> GroupOf(const NutchFile& file) const;
  // `file` at machine m.
  Result<Place> PlaceAt(const MachineConfig& m, const NutchFile& file);
  Result<Place> ViewOf(const NutchFile& file);
  // Runs write(machine) at every machine of group that is not left out. A failure is
  // returned at once, unless skip_unreachable lets it leave out a machine other than this
  // one; then the others go on, and the last failure is returned only when no machine
  // took the write. Returns how many did.
  Result<int> WriteEach(const GroupConfig& group, const std::function<Status(const std::string&)>& write);
  Result<Place> LockPlace(const NutchFile& lock);
  // The lease request for `lock`: its group's machines, each lock directory and raw Env.
  Result<LeaseRequest> LeaseRequestFor(const NutchFile& lock);
  // The first of `unless` present at its view (see WaitForUnless), if any.
  Result<std::optional<NutchFile>> FirstPresent(const std::vector<NutchFile>& unless);
  Status ListInto(Env& env, const std::string& dir, const std::string& prefix,
                  std::vector<std::string>* names);

  const ClusterConfig config_;
  const std::string own_machine_;
  const NutchFsOptions options_;
  MachineEnvs envs_;
  mutable std::mutex unreachable_mu_;
  std::vector<std::string> unreachable_;
};

}  // namespace nutchfs

#endif  // NUTCHFS_NUTCHFS_H_
