#include "nutchfs/lease.h"

#include <spdlog/spdlog.h>

#include <charconv>

#include "nutchfs/clock.h"
#include "nutchfs/publish.h"

namespace nutchfs {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

std::string RecordPath(const LeasePlace& p, const std::string& name, uint64_t epoch) {
  return p.dir + "/" + name + "." + std::to_string(epoch);
}

// The epochs of lease `name` in dir ("<name>.<epoch>" files); empty when there are none.
Result<std::vector<uint64_t>> Epochs(Env& env, const std::string& dir, const std::string& name) {
  auto children = env.GetChildren(dir);
  if (!children && children.error().IsNotFound()) return std::vector<uint64_t>();
  if (!children) return Err(children.error());
  std::vector<uint64_t> epochs;
  const std::string prefix = name + ".";
  for (const std::string& child : *children) {
    if (!child.starts_with(prefix)) continue;
    uint64_t epoch = 0;
    const char* begin = child.data() + prefix.size();
    const char* end = child.data() + child.size();
    auto [at, ec] = std::from_chars(begin, end, epoch);
    if (ec == std::errc() && at == end && begin != end && epoch > 0) epochs.push_back(epoch);
  }
  return epochs;
}

uint64_t Highest(const std::vector<uint64_t>& epochs) {
  uint64_t top = 0;
  for (uint64_t e : epochs) top = std::max(top, e);
  return top;
}

// The highest epoch over the places that can be reached, and the raw text of its record
// at the first of them that has it ("" when it vanished meanwhile).
struct Seen {
  uint64_t epoch = 0;
  std::string text;
  std::string path;
};

// Fills `reached` (the places that answered, in order) on the first call.
Result<Seen> Look(const LeaseRequest& r, std::vector<LeasePlace>* reached) {
  const bool first = reached->empty();
  const std::vector<LeasePlace>& places = first ? r.places : *reached;
  std::vector<LeasePlace> answered;
  Seen seen;
  std::optional<size_t> top;  // in answered
  for (const LeasePlace& p : places) {
    auto epochs = p.env == nullptr ? Result<std::vector<uint64_t>>(Err(p.why))
                                   : Epochs(*p.env, p.dir, r.name);
    if (!epochs) {
      const bool home = &p == &places.front() && first;
      if (home && !r.home_may_be_gone) {
        return Err(epochs.error().WithContext(r.what + ": its home machine " + p.machine +
                                              " cannot be reached"));
      }
      spdlog::warn("{}: machine {} cannot be reached ({}); going on without it", r.what,
                   p.machine, epochs.error().ToString());
      continue;
    }
    answered.push_back(p);
    const uint64_t e = Highest(*epochs);
    if (e > seen.epoch) {
      seen.epoch = e;
      top = answered.size() - 1;
    }
  }
  if (answered.empty()) {
    return Err(Status::IOError(r.what + ": no machine of its group can be reached"));
  }
  if (top) {
    const LeasePlace& p = answered[*top];
    seen.path = RecordPath(p, r.name, seen.epoch);
    auto text = ReadFileToString(*p.env, seen.path);
    if (text) seen.text = std::move(*text);
  }
  if (first) *reached = std::move(answered);
  return seen;
}

// Whether the record in `seen` may be taken over at once, must be watched for a lease,
// or is held by a live process here.
enum class Verdict { kTake, kWatch, kLive };

Verdict Judge(const Seen& seen, const LockOwner& me, std::string* holder) {
  if (seen.epoch == 0) return Verdict::kTake;
  auto owner = DecodeLockOwner(seen.text, seen.path);
  if (!owner) {
    *holder = "an unreadable record (" + owner.error().message() + ")";
    return Verdict::kWatch;
  }
  *holder = DescribeOwner(*owner) + ", epoch " + std::to_string(seen.epoch);
  if (owner->released) return Verdict::kTake;
  if (owner->host == me.host && owner->boot_id == me.boot_id) {
    if (ProcessAlive(owner->pid, owner->proc_start)) return Verdict::kLive;
    spdlog::warn("taking over the lease of {}: that process is gone", *holder);
    return Verdict::kTake;
  }
  if (owner->host == me.host) {
    spdlog::warn("taking over the lease of {}: it was taken before this host rebooted", *holder);
    return Verdict::kTake;
  }
  return Verdict::kWatch;
}

// Watches the record for one lease: OK when it did not change (the lease ran out), Busy
// when it was renewed, or when another taker moved the lock on meanwhile.
Status Watch(const LeaseRequest& r, std::vector<LeasePlace>* reached, const Seen& seen,
             const std::string& holder) {
  const auto start = Clock::now();
  const milliseconds lease(r.lease_ms);
  while (Clock::now() - start < lease) {
    std::this_thread::sleep_for(std::max(lease / 8, milliseconds(1)));
    NUTCHFS_ASSIGN_OR_RETURN(Seen now, Look(r, reached));
    if (now.epoch != seen.epoch) {
      return Status::Busy(r.what + " was taken by another run meanwhile (epoch " +
                          std::to_string(now.epoch) + ")");
    }
    if (now.text != seen.text) {
      auto owner = DecodeLockOwner(now.text, now.path);
      if (owner && owner->released) return Status::OK();
      return Status::Busy(r.what + " is held by " + holder + ", renewed within its lease of " +
                          std::to_string(r.lease_ms) + " ms");
    }
  }
  spdlog::warn("{}: the lease of {} ran out (not renewed for {} ms); taking it over", r.what,
               holder, r.lease_ms);
  return Status::OK();
}

// Creates the record of me.epoch at every place, in order. Busy (after removing what it
// made) when another taker created it first somewhere. Returns the places where it holds.
Result<std::vector<LeasePlace>> Create(const LeaseRequest& r, const std::vector<LeasePlace>& reached,
                                       const LockOwner& me) {
  std::vector<LeasePlace> held;
  auto undo = [&](Status s) {
    for (const LeasePlace& p : held) {
      Status removed = p.env->RemoveFile(RecordPath(p, r.name, me.epoch));
      (void)removed;  // best effort: the epoch was not taken, whatever is left of it
    }
    return Err(std::move(s));
  };
  const std::string text = EncodeLockOwner(me);
  for (const LeasePlace& p : reached) {
    Status s = p.env->CreateDirs(p.dir);
    if (s.ok()) s = p.env->CreateExclusive(RecordPath(p, r.name, me.epoch), text);
    if (s.ok()) s = p.env->SyncDir(p.dir);
    if (s.IsBusy()) {
      return undo(Status::Busy(r.what + ": epoch " + std::to_string(me.epoch) +
                               " was taken by another run meanwhile (machine " + p.machine + ")"));
    }
    if (!s.ok() && p.machine == r.places.front().machine && !r.home_may_be_gone) {
      return undo(s.WithContext(r.what + ": at its home machine " + p.machine));
    }
    if (!s.ok()) {
      spdlog::warn("{}: machine {}: {}; going on without it", r.what, p.machine, s.ToString());
      continue;
    }
    held.push_back(p);
  }
  if (held.empty()) return undo(Status::IOError(r.what + ": taken at no machine"));
  // The older epochs are history now (best effort: a leftover is lower, so never the lock).
  for (const LeasePlace& p : held) {
    auto epochs = Epochs(*p.env, p.dir, r.name);
    if (!epochs) continue;
    for (uint64_t e : *epochs) {
      if (e < me.epoch) {
        Status removed = p.env->RemoveFile(RecordPath(p, r.name, e));
        (void)removed;
      }
    }
  }
  return held;
}

// Writes the record at path by a temporary file and a rename, synced or not.
Status Rewrite(Env& env, const std::string& path, const std::string& text, bool sync) {
  if (sync) return WriteFileAtomically(env, path, text);
  const std::string tmp = TempPathFor(path);
  auto file = env.NewWritableFile(tmp);
  Status s = file ? (*file)->Append(text) : file.error();
  if (s.ok()) s = (*file)->Close();
  if (s.ok()) s = env.RenameFile(tmp, path);
  if (!s.ok()) {
    Status removed = env.RemoveFile(tmp);
    (void)removed;  // a hidden leftover at worst
  }
  return s;
}

}  // namespace

Lease::Lease(LeaseRequest request, std::vector<LeasePlace> held, int64_t taken_ns)
    : request_(std::move(request)),
      me_(request_.me),
      held_(std::move(held)),
      lease_(request_.lease_ms),
      renewed_ns_(taken_ns) {
  for (size_t i = 0; i < held_.size(); ++i) renewers_.emplace_back([this, i] { Renew(i); });
}

Lease::~Lease() {
  Status ignored = Release();
  (void)ignored;  // a destructor cannot report; callers that care call Release()
}

void Lease::Lose(std::string why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (lost_.load()) return;
  lost_why_ = std::move(why);
  lost_.store(true);
}

Status Lease::LookForSuccessor(const LeasePlace& p) {
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<uint64_t> epochs, Epochs(*p.env, p.dir, request_.name));
  if (Highest(epochs) <= me_.epoch) return Status::OK();
  const std::string path = RecordPath(p, request_.name, Highest(epochs));
  auto text_there = ReadFileToString(*p.env, path);
  auto successor = text_there ? DecodeLockOwner(*text_there, path)
                              : Result<LockOwner>(Err(text_there.error()));
  Lose("taken over by epoch " + std::to_string(Highest(epochs)) +
       (successor ? " (" + DescribeOwner(*successor) + ")" : "") + " at machine " + p.machine);
  return Status::OK();
}

Status Lease::Check() const {
  const auto margin = lease_ / 8;
  if (!lost_.load()) {
    const auto age = std::chrono::nanoseconds(SteadyNs() - renewed_ns_.load());
    if (age < lease_ - margin) return Status::OK();
    return Status::IOError(
        request_.what + " (epoch " + std::to_string(me_.epoch) + "): lost its lease: not renewed for " +
        std::to_string(std::chrono::duration_cast<milliseconds>(age).count()) + " ms (lease " +
        std::to_string(request_.lease_ms) + " ms); another run may hold it now");
  }
  std::lock_guard<std::mutex> lock(mu_);
  return Status::IOError(request_.what + " (epoch " + std::to_string(me_.epoch) +
                         "): lost its lease: " + lost_why_);
}

void Lease::Renew(size_t i) {
  const LeasePlace& p = held_[i];
  LockOwner record = me_;
  bool failing = false;
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, std::max(lease_ / 4, milliseconds(1)), [this] { return stop_; })) {
    lock.unlock();
    const int64_t start = SteadyNs();
    ++record.renewals;
    Status s = LookForSuccessor(p);
    if (s.ok() && !lost_.load()) {
      s = Rewrite(*p.env, RecordPath(p, request_.name, me_.epoch), EncodeLockOwner(record), false);
    }
    if (s.ok() && i == 0 && !lost_.load()) renewed_ns_.store(start);
    if (!s.ok() && !failing) {
      spdlog::warn("{}: renewing at machine {}{}: {}", request_.what, p.machine,
                   i == 0 ? "" : " (not its anchor: the lease goes on)", s.ToString());
    }
    failing = !s.ok();
    lock.lock();
  }
}

Status Lease::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (released_) return Status::OK();
    released_ = true;
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : renewers_) t.join();
  // A lease lost before its release is the holder's failure, whatever the release finds.
  const Status held = Check();
  if (lost_.load()) return held;
  LockOwner record = me_;
  record.released = true;
  // The first place's failure is the release's; elsewhere the record is renewed no more,
  // so it runs out like a released one.
  Status first;
  for (const LeasePlace& p : held_) {
    auto epochs = Epochs(*p.env, p.dir, request_.name);
    if (epochs && Highest(*epochs) > me_.epoch) continue;  // a successor's now
    Status s = Rewrite(*p.env, RecordPath(p, request_.name, me_.epoch), EncodeLockOwner(record),
                       true);
    if (s.ok()) continue;
    s = s.WithContext(request_.what + ": releasing at machine " + p.machine);
    if (&p == &held_.front()) {
      first = s;
    } else {
      spdlog::warn("{}", s.ToString());
    }
  }
  return held.ok() ? first : held;
}

Result<std::unique_ptr<Lease>> TakeLease(LeaseRequest request) {
  std::vector<LeasePlace> reached;
  NUTCHFS_ASSIGN_OR_RETURN(Seen seen, Look(request, &reached));
  std::string holder;
  switch (Judge(seen, request.me, &holder)) {
    case Verdict::kLive:
      return Err(Status::Busy(request.what + " is held by live " + holder));
    case Verdict::kWatch: {
      NUTCHFS_RETURN_IF_ERROR(Watch(request, &reached, seen, holder));
      NUTCHFS_ASSIGN_OR_RETURN(seen, Look(request, &reached));
      break;
    }
    case Verdict::kTake:
      break;
  }
  LockOwner me = request.me;
  me.epoch = seen.epoch + 1;
  me.lease_ms = request.lease_ms;
  me.acquired_ms = NowMs();
  // The lease runs from before its first record was created, not from when the taking
  // ended: a taker paused in between (SIGSTOP, a loaded machine) may have been watched
  // unrenewed for a lease and taken over, and then finds its lease run out at once.
  const int64_t taken_ns = SteadyNs();
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<LeasePlace> held, Create(request, reached, me));
  request.me = me;
  return std::unique_ptr<Lease>(new Lease(std::move(request), std::move(held), taken_ns));
}

Result<std::optional<LockOwner>> ReadLeaseRecord(Env& env, const std::string& dir,
                                                 const std::string& name) {
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<uint64_t> epochs, Epochs(env, dir, name));
  if (epochs.empty()) return std::optional<LockOwner>();
  const std::string path = dir + "/" + name + "." + std::to_string(Highest(epochs));
  NUTCHFS_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, path));
  NUTCHFS_ASSIGN_OR_RETURN(LockOwner owner, DecodeLockOwner(text, path));
  return std::optional<LockOwner>(std::move(owner));
}

Result<std::string> BreakLease(LeaseRequest request) {
  std::vector<LeasePlace> reached;
  NUTCHFS_ASSIGN_OR_RETURN(Seen seen, Look(request, &reached));
  std::string holder;
  if (Judge(seen, request.me, &holder) == Verdict::kLive) {
    return Err(Status::Busy(request.what + " is held by live " + holder +
                            ": stop that process instead"));
  }
  auto owner = DecodeLockOwner(seen.text, seen.path);
  if (seen.epoch == 0 || (owner && owner->released)) {
    return Err(Status::NotFound(request.what + " is not held"));
  }
  LockOwner me = request.me;
  me.epoch = seen.epoch + 1;
  me.lease_ms = request.lease_ms;
  me.acquired_ms = NowMs();
  me.released = true;
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<LeasePlace> held, Create(request, reached, me));
  return holder + ": ended (epoch " + std::to_string(me.epoch) + " released)";
}

}  // namespace nutchfs
