#include "distwriter/launch.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <cstring>

#include "distwriter/call_slicer.h"
#include "distwriter/exchange.h"
#include "distwriter/launch_record.h"
#include "distwriter/round_store.h"
#include "nutchfs/lock_owner.h"
#include "nutchfs/nutchfs.h"
#include "webdb/calls/json_out.h"

extern char** environ;

namespace distwriter {
namespace {

struct Child {
  int writer = 0;
  pid_t pid = -1;
  int out_fd = -1;
  int stdin_fd = -1;  // the write end of its stdin, held open while it runs
  bool ssh = false;   // runs on another host through ssh
  std::string output;
  int exit_code = -1;
  int signal = 0;        // the signal that ended a local writer, if one did
  bool stopped = false;  // stopped by launch because another writer failed
};

// "exit 3", "killed by signal 9 (SIGKILL)"; an ssh client passes on the remote shell's
// 128 + N for a remote writer killed by signal N.
std::string HowItEnded(const Child& c) {
  auto signal_name = [](int sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    return fmt::format("signal {} (SIG{})", sig, abbrev != nullptr ? abbrev : "?");
  };
  if (c.signal != 0) return "killed by " + signal_name(c.signal);
  if (c.ssh && c.exit_code > 128 && c.exit_code < 128 + NSIG) {
    return fmt::format("exit {}: killed by {} on its host", c.exit_code,
                       signal_name(c.exit_code - 128));
  }
  // What a shell answers for a command it cannot find: an ssh writer's distwriter.
  if (c.ssh && c.exit_code == 127) {
    return "exit 127: no distwriter binary on its host (see `distwriter =` in the config)";
  }
  return fmt::format("exit {}", c.exit_code);
}

// The command an ssh writer runs under the remote login shell (a POSIX shell). sshd
// leaves a command without a terminal running when the connection goes, so the writer
// runs in the background and is stopped (SIGTERM) when the shell's standard input, a
// pipe launch holds open, ends: launch closed it (Stop) or died, or the connection broke.
std::string RemoteCommand(const std::vector<std::string>& run) {
  std::string writer;
  for (const std::string& a : run) writer += "'" + a + "' ";  // paths hold no quotes
  return "exec 3<&0 </dev/null; " + writer +
         "& w=$!; { cat <&3 >/dev/null 2>&1; kill $w; } >/dev/null 2>&1 & c=$!; "
         "wait $w; s=$?; kill $c 2>/dev/null; exit $s";
}

// The host-key options of an ssh command, checking keys as the SFTP Env does
// (nutchfs/ssh_session.cc): only the configured known_hosts file vouches for a host; a
// changed key is always refused; an unknown one only unless ssh_accept_unknown_host_keys,
// and then it is recorded in `scratch` (a file of this launch), not in known_hosts.
std::vector<std::string> HostKeyOptions(const nutchfs::SshConfig& ssh, const std::string& scratch) {
  const std::string known = ssh.known_hosts_file.empty() ? "~/.ssh/known_hosts"
                                                         : "\"" + ssh.known_hosts_file + "\"";
  std::vector<std::string> o;
  if (!ssh.known_hosts_file.empty()) o = {"-o", "GlobalKnownHostsFile=" + known};
  if (!ssh.accept_unknown_host_keys) {
    o.insert(o.end(), {"-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + known});
    return o;
  }
  // ssh records a new key in the first file and checks every file for a changed one.
  o.insert(o.end(), {"-o", "StrictHostKeyChecking=accept-new", "-o",
                     "UserKnownHostsFile=\"" + scratch + "\" " + known});
  return o;
}

std::vector<std::string> WriterCommand(const DistConfig& config, const LaunchOptions& o, int i,
                                       const std::string& session,
                                       const std::vector<std::string>& inputs,
                                       const std::string& scratch) {
  const std::string& binary =
      config.distwriter_binary.empty() ? o.distwriter_binary : config.distwriter_binary;
  std::vector<std::string> run = {binary, o.rank ? "rank" : "run", "--config",
                                  o.config_path, "--writer", std::to_string(i)};
  if (o.rank) {
    run.insert(run.end(), {"--iterations", std::to_string(o.rank->iterations), "--epsilon",
                           fmt::format("{}", o.rank->epsilon), "--damping",
                           fmt::format("{}", o.rank->damping)});
  } else {
    run.insert(run.end(), {"--session", session});
  }
  run.insert(run.end(), o.run_flags.begin(), o.run_flags.end());
  run.insert(run.end(), inputs.begin(), inputs.end());
  const nutchfs::Location& loc = config.cluster.FindMachine(config.writer_machines[i])->location;
  if (loc.scheme == nutchfs::Location::Scheme::kLocal) return run;
  std::vector<std::string> ssh = {"ssh", "-o", "BatchMode=yes", "-p", std::to_string(loc.port)};
  if (!config.cluster.ssh.identity_file.empty()) {
    ssh.insert(ssh.end(), {"-i", config.cluster.ssh.identity_file});
  }
  const std::vector<std::string> keys = HostKeyOptions(config.cluster.ssh, scratch);
  ssh.insert(ssh.end(), keys.begin(), keys.end());
  ssh.push_back(loc.user.empty() ? loc.host : loc.user + "@" + loc.host);
  ssh.push_back(RemoteCommand(run));
  return ssh;
}

// Starts argv with its stdout to a pipe. Its stdin is a pipe held open by the Child
// (never launch's own stdin, which belongs to launch's caller).
Result<Child> Spawn(const std::vector<std::string>& argv, int writer) {
  int fds[2], in[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Err(Status::FromErrno("pipe", errno));
  if (::pipe2(in, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return Err(Status::FromErrno("pipe", e));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Child c;
  c.writer = writer;
  int rc = ::posix_spawnp(&c.pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  ::close(in[0]);
  if (rc != 0) {
    ::close(fds[0]);
    ::close(in[1]);
    return Err(Status::FromErrno("start " + argv[0], rc));
  }
  c.out_fd = fds[0];
  c.stdin_fd = in[1];
  return c;
}

// Reaps c, which has closed its stdout (so it is exiting).
void Reap(Child& c) {
  int status = 0;
  ::waitpid(c.pid, &status, 0);
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  c.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  c.pid = -1;
  if (c.stdin_fd >= 0) ::close(c.stdin_fd);
  c.stdin_fd = -1;
}

// Stops a running writer: SIGTERM for a local one; for an ssh writer, the end of its
// ssh client's stdin, which stops the remote writer (RemoteCommand) before ssh exits, so
// that it has stopped when the ssh client is reaped.
void Stop(Child& c) {
  if (c.pid <= 0 || c.stopped) return;
  c.stopped = true;
  if (!c.ssh) {
    ::kill(c.pid, SIGTERM);
    return;
  }
  ::close(c.stdin_fd);
  c.stdin_fd = -1;
}

// The peers whose failure marker for round reached writer (none if unreadable).
std::vector<int> FailedPeersOf(nutchfs::NutchFs& fs, const DistConfig& config, uint64_t round,
                               int writer) {
  auto peers = Exchange(fs, config, writer, round, 0, std::chrono::milliseconds(0)).FailedPeers();
  return peers ? *peers : std::vector<int>();
}

// Collects every child's stdout until all have exited. When one writer fails the round
// cannot complete, so the others are stopped instead of waiting out their timeout —
// unless a peer's failure marker is what made it fail: that peer is failing already and
// has told the others, so it is left to exit with its own reason.
void WaitAll(nutchfs::NutchFs& fs, const DistConfig& config, uint64_t round,
             std::vector<Child>& children, const webdb::ProgressFn& progress) {
  uint64_t finished = 0;
  std::vector<pollfd> fds;
  for (Child& c : children) fds.push_back({c.out_fd, POLLIN, 0});
  size_t open = fds.size();
  char buf[4096];
  while (open > 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        children[i].output.append(buf, static_cast<size_t>(n));
        continue;
      }
      ::close(fds[i].fd);
      fds[i].fd = -1;
      --open;
      Reap(children[i]);
      if (progress) progress({"writers finished", ++finished, children.size(), "writers"});
      if (children[i].exit_code == 0) continue;
      if (!FailedPeersOf(fs, config, round, children[i].writer).empty()) continue;
      for (Child& other : children) Stop(other);
    }
  }
}

// Each rank writer's seconds and bytes sent, and what the rank did.
void PrintRankReport(const DistConfig& config, const std::vector<Child>& children,
                     std::FILE* out) {
  std::fprintf(out, "%-7s %-12s %8s %10s %12s\n", "writer", "machine", "total_s", "iter_s",
               "bytes_sent");
  simdjson::dom::parser parser;
  std::string summary;
  for (const Child& c : children) {
    simdjson::dom::element doc;
    if (parser.parse(c.output).get(doc) != simdjson::SUCCESS) continue;
    double iterations = 0;
    size_t n = 0;
    for (double v : doc["iteration_seconds"].get_array()) {
      iterations += v;
      ++n;
    }
    std::fprintf(out, "%-7d %-12s %8.3f %10.3f %12lu\n", c.writer,
                 config.writer_machines[c.writer].c_str(),
                 doc["seconds"].get_double().value_unsafe(), n > 0 ? iterations / n : 0.0,
                 doc["bytes_sent"].get_uint64().value_unsafe());
    const uint64_t version = doc["version"].get_uint64().value_unsafe();
    const uint64_t pages = doc["pages"].get_uint64().value_unsafe();
    if (pages == 0) {
      summary = fmt::format("version {}: no pages, nothing to rank\n", version);
    } else {
      summary = fmt::format("version {}: {} pages, {} iterations, last L1 change {}{}\n", version,
                            pages, doc["iterations"].get_uint64().value_unsafe(),
                            doc["l1"].get_double().value_unsafe(),
                            doc["already_applied"].get_bool().value_unsafe()
                                ? " (this rank's result already)"
                                : "");
    }
  }
  std::fputs(summary.c_str(), out);
}

void PrintReport(const DistConfig& config, const std::vector<Child>& children, std::FILE* out) {
  std::fprintf(out, "%-7s %-12s %9s %8s", "writer", "machine", "calls", "total_s");
  for (int s = 0; s <= kCommitStage; ++s) std::fprintf(out, " %8s", fmt::format("s{}_s", s).c_str());
  std::fprintf(out, " %12s\n", "bytes_sent");
  simdjson::dom::parser parser;
  uint64_t version = 0, pages = 0, links = 0;
  size_t applied = 0;  // writers that found their calls applied
  std::vector<uint64_t> stage_bytes(kCommitStage + 1, 0);
  for (const Child& c : children) {
    simdjson::dom::element doc;
    if (parser.parse(c.output).get(doc) != simdjson::SUCCESS) continue;
    double total = 0;
    uint64_t bytes = 0;
    std::string cells;
    size_t s = 0;
    for (double v : doc["stage_seconds"].get_array()) {
      total += v;
      cells += fmt::format(" {:8.3f}", v);
    }
    for (uint64_t b : doc["bytes_sent"].get_array()) {
      bytes += b;
      if (s < stage_bytes.size()) stage_bytes[s++] += b;
    }
    version = doc["version"].get_uint64().value_unsafe();
    applied += doc["already_applied"].get_bool().value_unsafe() ? 1 : 0;
    pages = doc["pages"].get_uint64().value_unsafe();
    links = doc["links"].get_uint64().value_unsafe();
    std::fprintf(out, "%-7d %-12s %9lu %8.3f%s %12lu\n", c.writer,
                 config.writer_machines[c.writer].c_str(),
                 doc["calls"].get_uint64().value_unsafe(), total, cells.c_str(), bytes);
  }
  std::fprintf(out, "bytes exchanged per stage:");
  for (int s = 0; s <= kCommitStage; ++s) std::fprintf(out, " s%d=%lu", s, stage_bytes[s]);
  std::fprintf(out, "\nversion %lu: %lu pages, %lu links\n", version, pages, links);
  if (applied == children.size()) {
    std::fprintf(out, "already applied in round %lu: a rerun of an interrupted launch\n",
                 version);
  }
}

// Each writer's report as its `run` or `rank` printed it, with its machine: the
// "writers" array of the JSON reports.
std::string WritersJson(const DistConfig& config, const std::vector<Child>& children) {
  std::string writers;
  for (const Child& c : children) {
    std::string report(c.output);
    while (!report.empty() && report.back() == '\n') report.pop_back();
    writers += writers.empty() ? "{\"machine\":" : ",{\"machine\":";
    webdb::AppendJsonString(config.writer_machines[c.writer], &writers);
    writers += ",\"report\":" + report + "}";
  }
  return "[" + writers + "]";
}

// The report as one JSON object: the round's version, pages and links, the bytes each
// stage exchanged, and each writer's report as `distwriter run` printed it.
void PrintJsonReport(const DistConfig& config, const std::vector<Child>& children,
                     std::FILE* out) {
  simdjson::dom::parser parser;
  uint64_t version = 0, pages = 0, links = 0;
  std::vector<uint64_t> stage_bytes(kCommitStage + 1, 0);
  for (const Child& c : children) {
    simdjson::dom::element doc;
    if (parser.parse(c.output).get(doc) != simdjson::SUCCESS) continue;
    size_t s = 0;
    for (uint64_t b : doc["bytes_sent"].get_array()) {
      if (s < stage_bytes.size()) stage_bytes[s++] += b;
    }
    version = doc["version"].get_uint64().value_unsafe();
    pages = doc["pages"].get_uint64().value_unsafe();
    links = doc["links"].get_uint64().value_unsafe();
  }
  std::string bytes;
  for (uint64_t b : stage_bytes) bytes += fmt::format("{}{}", bytes.empty() ? "" : ",", b);
  std::fprintf(out,
               "{\"version\":%lu,\"pages\":%lu,\"links\":%lu,\"bytesPerStage\":[%s],"
               "\"writers\":%s}\n",
               version, pages, links, bytes.c_str(), WritersJson(config, children).c_str());
}

// A rank round's report as one JSON object: the round's version, pages, iterations and
// last L1 change, whether it was this rank's result already, and each writer's report as
// `distwriter rank` printed it.
void PrintRankJsonReport(const DistConfig& config, const std::vector<Child>& children,
                         std::FILE* out) {
  simdjson::dom::parser parser;
  std::string round =
      "\"version\":0,\"pages\":0,\"iterations\":0,\"l1\":0,\"alreadyApplied\":false";
  for (const Child& c : children) {
    simdjson::dom::element doc;
    if (parser.parse(c.output).get(doc) != simdjson::SUCCESS) continue;
    round = fmt::format("\"version\":{},\"pages\":{},\"iterations\":{},\"l1\":{},"
                        "\"alreadyApplied\":{}",
                        doc["version"].get_uint64().value_unsafe(),
                        doc["pages"].get_uint64().value_unsafe(),
                        doc["iterations"].get_uint64().value_unsafe(),
                        doc["l1"].get_double().value_unsafe(),
                        doc["already_applied"].get_bool().value_unsafe());
  }
  std::fprintf(out, "{%s,\"writers\":%s}\n", round.c_str(),
               WritersJson(config, children).c_str());
}

bool IsSsh(const DistConfig& config, int writer) {
  return config.cluster.FindMachine(config.writer_machines[writer])->location.scheme ==
         nutchfs::Location::Scheme::kSsh;
}

// The latest version of the db: the one installed at the meta group's home (writer 0's
// machine), or the next one if it is decided on some machine (its writers roll it
// forward before offering stage 0). The launched round is the next one.
Result<uint64_t> LatestVersion(nutchfs::NutchFs& fs, const DistConfig& config) {
  RoundStore store(fs, config, "/tmp");
  NUTCHFS_ASSIGN_OR_RETURN(const uint64_t installed, store.InstalledVersion());
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> decided, store.FindDecided(installed + 1));
  return decided ? decided->version : installed;
}

// Removes the input pieces that launches on this host left when they were killed
// (inputs/launch-<host>-<pid>-<n>.jsonl whose pid runs no more); a piece is only read
// while its launch runs.
void RemoveStalePieces(nutchfs::NutchFs& fs, const DistConfig& config, const std::string& host) {
  const std::string prefix = "inputs/launch-" + host + "-";
  for (int i = 0; i < config.k; ++i) {
    auto names = fs.List(config.db(), WriterGroup(i), "inputs");
    if (!names) continue;  // its writer will report an unreachable machine
    for (const std::string& name : *names) {
      long pid = 0;
      if (!name.starts_with(prefix) ||
          std::sscanf(name.c_str() + prefix.size(), "%ld-", &pid) != 1 ||
          nutchfs::ProcessAlive(pid, 0)) {
        continue;
      }
      Status s = fs.Delete(config.WriterFile(i, name));
      if (s.ok()) spdlog::info("removed {} of a killed launch", name);
    }
  }
}

// The failed writers, for the error message. A writer that exited because a peer's
// failure marker reached it, without publishing one of its own, was stopped by that
// peer, as if launch had stopped it. Markers of writers launch stopped do not count:
// they are sent after the failure that made launch stop them, so they explain none, and
// a failed writer holding one may have had its own marker erased at a peer that started
// its attempt late (an attempt clears the markers of earlier ones). A writer retracts the stage 0 files it sent when it
// fails, not when it is killed; so that a rerun with other inputs cannot read them, they
// are retracted here for every writer that did not succeed (all have exited).
std::string Failures(nutchfs::NutchFs& fs, const DistConfig& config, uint64_t round,
                     const std::vector<Child>& children) {
  std::vector<bool> stopped_by_launch(config.k, false);
  for (const Child& c : children) stopped_by_launch[c.writer] = c.stopped;
  std::vector<std::vector<int>> told(config.k);  // told[i]: peers whose marker i holds
  std::vector<bool> published(config.k, false);
  for (const Child& c : children) {
    if (c.exit_code == 0) continue;
    for (int p : FailedPeersOf(fs, config, round, c.writer)) {
      published[p] = true;
      if (!stopped_by_launch[p]) told[c.writer].push_back(p);
    }
  }
  std::string failed;
  for (const Child& c : children) {
    if (c.exit_code == 0) continue;
    const bool by_peer = !told[c.writer].empty() && !published[c.writer] && c.signal == 0;
    if (c.stopped || c.exit_code == 128 + SIGTERM || by_peer) {
      failed += fmt::format(" {} (stopped)", config.Describe(c.writer));
    } else {
      failed += fmt::format(" {} ({})", config.Describe(c.writer), HowItEnded(c));
    }
    Exchange exchange(fs, config, c.writer, round, 0, std::chrono::milliseconds(0));
    Status s = exchange.RetractStageZero();
    if (!s.ok()) failed += " (its stage 0 files remain: " + s.ToString() + ")";
  }
  return failed;
}

// The session of this launch (docs/DISTRIBUTED.md, "Sessions"): the one it was given;
// else the recorded one when the launch before it, of the same call stream, did not
// succeed (this is its rerun); else a new one, recorded before any writer starts.
Result<std::string> SessionOf(nutchfs::NutchFs& fs, const DistConfig& config,
                              const std::string& given, const std::string& stream) {
  if (!given.empty()) return given;
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<LaunchRecord> unfinished, ReadLaunchRecord(fs, config));
  if (unfinished && unfinished->stream == stream) {
    spdlog::info("the launch before this one, of the same calls, did not succeed: this is its "
                 "rerun (session {})",
                 unfinished->session);
    return unfinished->session;
  }
  NUTCHFS_ASSIGN_OR_RETURN(std::string session, NewSession());
  NUTCHFS_RETURN_IF_ERROR(WriteLaunchRecord(fs, config, {stream, session}));
  return session;
}

}  // namespace

Status Launch(const DistConfig& config, const LaunchOptions& options, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, ""));
  const std::string host = nutchfs::CurrentProcess("").host;
  RemoveStalePieces(*fs, config, host);
  const std::string scratch = "/tmp/webdb-launch-" + std::to_string(::getpid()) + ".known_hosts";
  NUTCHFS_ASSIGN_OR_RETURN(const uint64_t committed, LatestVersion(*fs, config));
  // Every slice is in place before any writer starts, so no writer waits in stage 0
  // for a peer whose input is still being copied. Writer i's call files are the pieces
  // of slice i, in order.
  std::vector<std::vector<nutchfs::NutchFile>> pieces(config.k);
  int published = 0;
  // total 0: unknown (standard input)
  uint64_t total_bytes = options.calls != nullptr ? options.calls->spool().size() : 0;
  uint64_t sliced_bytes = 0;
  for (const std::string& f : options.call_files) {
    auto size = f == "-" ? Result<uint64_t>(0) : fs->local_env().GetFileSize(f);
    if (!size || *size == 0 || f == "-") {
      total_bytes = 0;
      break;
    }
    total_bytes += *size;
  }
  auto publish = [&](int i, const std::string& piece) -> Status {
    if (options.progress) {
      auto size = fs->local_env().GetFileSize(piece);
      sliced_bytes += size ? *size : 0;
      options.progress({"slicing the calls", sliced_bytes, total_bytes, "bytes"});
    }
    const nutchfs::NutchFile file = config.WriterFile(
        i, fmt::format("inputs/launch-{}-{}-{}.jsonl", host, ::getpid(), published++));
    NUTCHFS_RETURN_IF_ERROR(fs->Move(piece, file));
    pieces[i].push_back(file);
    return Status::OK();
  };
  // A rank round has no calls, hence no session: its digest is its options'.
  std::string session;
  if (!options.rank) {
    const std::string tmp_prefix = "/tmp/webdb-launch-" + std::to_string(::getpid());
    NUTCHFS_ASSIGN_OR_RETURN(
        const std::string stream,
        options.calls != nullptr
            ? SliceSpool(fs->local_env(), options.calls->spool(), config.k, tmp_prefix, publish)
            : SliceCalls(fs->local_env(), options.call_files, config.k, tmp_prefix, publish));
    NUTCHFS_ASSIGN_OR_RETURN(session, SessionOf(*fs, config, options.session, stream));
  }
  std::vector<Child> children;
  Status started;
  for (int i = 0; i < config.k && started.ok(); ++i) {
    const nutchfs::Location& loc = config.cluster.FindMachine(config.writer_machines[i])->location;
    std::vector<std::string> inputs;
    for (const nutchfs::NutchFile& f : pieces[i]) {
      inputs.push_back(loc.root + "/" + f.RelativePath());
    }
    auto c = Spawn(WriterCommand(config, options, i, session, inputs, scratch), i);
    if (!c) {
      // The round cannot complete: the writers started are stopped, and their stage 0
      // files retracted, below.
      started = Status::IOError(config.Describe(i) + ": " + c.error().message());
      for (Child& other : children) Stop(other);
      break;
    }
    c->ssh = IsSsh(config, i);
    children.push_back(std::move(*c));
  }
  WaitAll(*fs, config, committed + 1, children, options.progress);
  Status forgotten = fs->local_env().RemoveFile(scratch);
  (void)forgotten;  // exists only if a host key was accepted
  for (const auto& slice : pieces) {
    for (const nutchfs::NutchFile& f : slice) {
      Status s = fs->Delete(f);
      (void)s;  // a leftover input piece is harmless; the writers' results matter
    }
  }
  const std::string failed = Failures(*fs, config, committed + 1, children);
  if (!started.ok()) return started;
  if (!failed.empty()) return Status::IOError("writers failed:" + failed);
  if (options.rank) {
    if (out == nullptr) return Status::OK();
    if (options.json) {
      PrintRankJsonReport(config, children, out);
    } else {
      PrintRankReport(config, children, out);
    }
    return Status::OK();
  }
  // Done: the next launch of these calls is a new session.
  NUTCHFS_RETURN_IF_ERROR(RemoveLaunchRecord(*fs, config));
  if (out == nullptr) return Status::OK();
  if (options.json) {
    PrintJsonReport(config, children, out);
  } else {
    PrintReport(config, children, out);
  }
  return Status::OK();
}

}  // namespace distwriter
