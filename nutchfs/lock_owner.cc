#include "nutchfs/lock_owner.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

namespace nutchfs {
namespace {

constexpr std::string_view kMagic = "nutchfs-lock 1";
constexpr std::string_view kLeaseMagic = "nutchfs-lock 2";

std::string ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown-host";
  return buf;
}

// Field 22 of /proc/PID/stat (start time in clock ticks after boot); 0 if unknown.
uint64_t ProcessStartTicks(int64_t pid) {
  std::string stat = ReadFirstLine("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

template <typename Int>
bool ParseNumber(std::string_view s, Int* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// Stores one "key=value" field; false for an unknown key or a malformed number.
bool SetField(LockOwner* o, std::string_view key, std::string_view value) {
  if (key == "pid") return ParseNumber(value, &o->pid);
  if (key == "proc_start") return ParseNumber(value, &o->proc_start);
  if (key == "acquired_ms") return ParseNumber(value, &o->acquired_ms);
  if (key == "epoch") return ParseNumber(value, &o->epoch) && o->epoch > 0;
  if (key == "lease_ms") return ParseNumber(value, &o->lease_ms);
  if (key == "renewals") return ParseNumber(value, &o->renewals);
  if (key == "released") {
    if (value != "0" && value != "1") return false;
    o->released = value == "1";
    return true;
  }
  std::string* text = key == "machine"   ? &o->machine
                      : key == "host"    ? &o->host
                      : key == "boot_id" ? &o->boot_id
                      : key == "token"   ? &o->token
                                         : nullptr;
  if (text == nullptr) return false;
  *text = value;
  return true;
}

}  // namespace

std::string DescribeOwner(const LockOwner& o) {
  return "pid " + std::to_string(o.pid) + " on host " + o.host +
         (o.machine.empty() ? "" : " (machine " + o.machine + ")");
}

std::string EncodeLockOwner(const LockOwner& o) {
  std::ostringstream out;
  out << (o.epoch > 0 ? kLeaseMagic : kMagic) << "\nmachine=" << o.machine << "\nhost=" << o.host
      << "\nboot_id=" << o.boot_id << "\npid=" << o.pid << "\nproc_start=" << o.proc_start
      << "\nacquired_ms=" << o.acquired_ms << "\ntoken=" << o.token << "\n";
  if (o.epoch > 0) {
    out << "epoch=" << o.epoch << "\nlease_ms=" << o.lease_ms << "\nrenewals=" << o.renewals
        << "\nreleased=" << (o.released ? 1 : 0) << "\n";
  }
  return out.str();
}

Result<LockOwner> DecodeLockOwner(std::string_view text, const std::string& path) {
  auto bad = [&](std::string_view why) {
    return Err(Status::Corruption("lock file " + path + ": " + std::string(why)));
  };
  const std::string header = std::string(kMagic) + "\n";
  const std::string lease_header = std::string(kLeaseMagic) + "\n";
  const bool lease = text.starts_with(lease_header);
  if ((!lease && !text.starts_with(header)) || !text.ends_with('\n')) {
    return bad("not a NutchFS lock file");
  }
  text.remove_prefix(header.size());
  LockOwner owner;
  std::set<std::string_view> keys;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || !keys.insert(line.substr(0, eq)).second ||
        !SetField(&owner, line.substr(0, eq), line.substr(eq + 1))) {
      return bad("bad line '" + std::string(line) + "'");
    }
  }
  const bool lease_keys = keys.contains("epoch") || keys.contains("lease_ms") ||
                          keys.contains("renewals") || keys.contains("released");
  if (keys.size() != (lease ? 11u : 7u) || lease_keys != lease || owner.token.empty()) {
    return bad("missing fields");
  }
  return owner;
}

LockOwner CurrentProcess(std::string machine) {
  static const std::string boot_id = ReadFirstLine("/proc/sys/kernel/random/boot_id");
  LockOwner o;
  o.machine = std::move(machine);
  o.host = HostName();
  o.boot_id = boot_id;
  o.pid = ::getpid();
  o.proc_start = ProcessStartTicks(o.pid);
  o.acquired_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  std::random_device rd;
  std::ostringstream token;
  token << std::hex << rd() << rd();
  o.token = token.str();
  return o;
}

bool ProcessAlive(int64_t pid, uint64_t proc_start) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  return proc_start == 0 || ProcessStartTicks(pid) == proc_start;
}

LockVerdict JudgeLock(const Result<LockOwner>& owner, const LockOwner& me, int64_t now_ms,
                      int64_t lease_ms, bool force) {
  if (!owner) {
    return {force, "unreadable lock (" + owner.error().message() + ")" +
                       (force ? ", forced" : "; breaking it needs force")};
  }
  const LockOwner& o = *owner;
  if (o.host == me.host && o.boot_id == me.boot_id) {
    if (ProcessAlive(o.pid, o.proc_start)) return {false, "held by live " + DescribeOwner(o)};
    return {true, DescribeOwner(o) + " is gone"};
  }
  if (o.host == me.host) {
    return {true, DescribeOwner(o) + " is gone: it was taken before this host rebooted (boot id " +
                      o.boot_id + ", now " + me.boot_id + ")"};
  }
  // acquired_ms comes from a file: the difference may not fit (a saturated age then
  // still compares right with the lease).
  int64_t age_ms;
  if (__builtin_sub_overflow(now_ms, o.acquired_ms, &age_ms)) {
    age_ms = o.acquired_ms < 0 ? std::numeric_limits<int64_t>::max()
                               : std::numeric_limits<int64_t>::min();
  }
  std::string held = "held by " + DescribeOwner(o) + " for " + std::to_string(age_ms) +
                     " ms; another host's process cannot be checked from here";
  // A lease only matters to a forced break that asks for one (lease_ms > 0): no message
  // speaks of a lease otherwise.
  if (lease_ms > 0 && age_ms < lease_ms) {
    return {false, held + ", and the lock is younger than the lease of " +
                       std::to_string(lease_ms) + " ms"};
  }
  if (!force) return {false, held + "; breaking it needs force"};
  if (lease_ms > 0) {
    return {true, held + "; older than the lease of " + std::to_string(lease_ms) + " ms, forced"};
  }
  return {true, held + "; forced"};
}

}  // namespace nutchfs
