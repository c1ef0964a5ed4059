// The `distwriter` command (docs/DISTRIBUTED.md, spec/interfaces.md section 3):
//   distwriter init-local --writers K --root DIR --out FILE [--db NAME] [--force]
//   distwriter create --config FILE [--sample URLFILE] [--keep N]
//   distwriter run --config FILE --writer I [--machine M] CALLFILE...
//   distwriter launch --config FILE CALLFILE...
//   distwriter rank --config FILE --writer I [--iterations K] [--epsilon E] [--damping D]
//   distwriter launch --config FILE --rank [--iterations K] [--epsilon E] [--damping D]
//   distwriter unlock --config FILE --writer I
//   distwriter rereplicate --config FILE
//   distwriter machines --config FILE
//   distwriter config --config FILE --get KEY
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "distwriter/create.h"
#include "distwriter/init_local.h"
#include "distwriter/launch.h"
#include "distwriter/round.h"
#include "distwriter/round_versions.h"
#include "nutchfs/lock_file.h"
#include "nutchfs/nutchfs.h"
#include "tools/allocator.h"
#include "tools/cli_args.h"
#include "tools/cli_commands.h"
#include "tools/cli_parser.h"
#include "tools/cli_spec.h"
#include "tools/config_query.h"
#include "tools/progress_reporter.h"
#include "tools/step_observer.h"
#include "tools/stop_signals.h"
#include "tools/writer_rank.h"

using nutchfs::Result;
using nutchfs::Status;

namespace {

struct Args {
  std::string command, config, root, out, db = "webdb", sample, memory, log_level = "warn", get;
  std::string session;  // run --session
  std::string machine;  // run --machine: a takeover on a replica holder
  int writers = 0;
  std::optional<int> writer;
  std::string writer_source = "--writer";  // or the scheduler's variable it came from
  uint32_t keep = webdb::kDefaultKeep;  // create --keep
  std::optional<size_t> memory_budget;  // --memory, parsed
  bool quiet = false, help = false, force = false, json = false;
  bool rank = false;  // launch --rank, or the rank command
  std::optional<webdb::RankOptions> rank_options;
  std::vector<std::string> files;
};

// The --writer rules; the range against k is checked once the config is read.
Status CheckWriterFlag(const Args& a) {
  if (a.command != "run" && a.command != "unlock" && a.command != "rank") {
    return a.writer ? Status::InvalidArgument("--writer is for run and unlock only (" + a.command +
                                              (a.command == "launch" ? " starts every writer)" : ")"))
                    : Status::OK();
  }
  if (!a.writer) {
    return Status::InvalidArgument(
        a.command + " needs --writer I, the writer it " +
        (a.command == "unlock" ? "unlocks (0..k-1)"
                               : "runs as (0..k-1), or a scheduler's rank: SLURM_ARRAY_TASK_ID, "
                                 "SLURM_PROCID or JOB_COMPLETION_INDEX"));
  }
  if (*a.writer < 0) {
    return Status::InvalidArgument("--writer " + std::to_string(*a.writer) +
                                   ": a writer index is 0 or more");
  }
  return Status::OK();
}

// --rank (launch only; the rank command is one) and the rank options, which go with a
// rank only.
Status ParseRankFlags(const tools::ParsedArgs& given, Args* a) {
  if (a->rank && a->command != "launch") {
    return Status::InvalidArgument("--rank is for launch only (distwriter rank runs one writer)");
  }
  if (a->command == "rank") a->rank = true;
  if (a->rank && given.Given("session")) {
    return Status::InvalidArgument("--session goes with a round of calls: a rank round has none");
  }
  const bool options =
      given.Given("iterations") || given.Given("epsilon") || given.Given("damping");
  if (options && !a->rank) {
    return Status::InvalidArgument("--iterations, --epsilon and --damping go with rank only");
  }
  if (!a->rank) return Status::OK();
  NUTCHFS_ASSIGN_OR_RETURN(a->rank_options,
                           tools::ParseRankOptions(given.Value("iterations"),
                                                   given.Value("epsilon"), given.Value("damping")));
  return Status::OK();
}

// The numbers among the options; their ranges against the config are checked later.
Status FillNumbers(const tools::ParsedArgs& given, Args& a) {
  if (given.Given("writers")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        int64_t k, tools::ParseIntArg("--writers", *given.Value("writers"), 1, 1 << 20));
    a.writers = static_cast<int>(k);
  }
  if (given.Given("writer")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        int64_t i, tools::ParseIntArg("--writer", *given.Value("writer"), INT_MIN, INT_MAX));
    a.writer = static_cast<int>(i);
  }
  if (given.Given("keep")) {
    NUTCHFS_ASSIGN_OR_RETURN(
        int64_t keep, tools::ParseIntArg("--keep", *given.Value("keep"), 1, webdb::kMaxKeep));
    a.keep = static_cast<uint32_t>(keep);
  }
  return Status::OK();
}

Result<Args> Parse(int argc, char** argv) {
  Args a;
  NUTCHFS_ASSIGN_OR_RETURN(tools::ParsedArgs given,
                           tools::ParseArgs(tools::DistwriterSpec(), argc, argv));
  auto text = [&](const char* name, std::string* to) { given.CopyValue(name, to); };
  text("config", &a.config);
  text("root", &a.root);
  text("out", &a.out);
  text("db", &a.db);
  text("sample", &a.sample);
  text("memory", &a.memory);
  text("log-level", &a.log_level);
  text("get", &a.get);
  text("session", &a.session);
  text("machine", &a.machine);
  if (given.Given("session") && (a.session.empty() || a.session.size() > 256)) {
    return nutchfs::Err(Status::InvalidArgument("--session NAME: 1 to 256 bytes"));
  }
  a.help = given.Switch("help");
  a.quiet = given.Switch("quiet");
  a.force = given.Switch("force");
  a.json = given.Switch("json");
  a.rank = given.Switch("rank");
  a.files = given.words;
  if (!a.files.empty()) {
    a.command = a.files.front();
    a.files.erase(a.files.begin());
  }
  // `distwriter --help`, `distwriter CMD --help`, `distwriter help [CMD]`.
  if (a.command == "help") {
    if (a.files.size() > 1)
      return nutchfs::Err(Status::InvalidArgument("usage: distwriter help [COMMAND]"));
    if (!a.files.empty()) a.command = a.files.front();
    if (a.files.empty() && !a.help) a.command.clear();  // `help --help` is help's own
    a.help = true;
  }
  if (a.help) return a;
  NUTCHFS_RETURN_IF_ERROR(FillNumbers(given, a));
  if (a.command.empty()) return nutchfs::Err(Status::InvalidArgument("no command given"));
  NUTCHFS_RETURN_IF_ERROR(ParseRankFlags(given, &a));
  const bool needs_files = a.command == "run" || (a.command == "launch" && !a.rank);
  if (a.command == "init-local") {
    if (a.writers < 1 || a.root.empty() || a.out.empty() || !a.files.empty()) {
      return nutchfs::Err(Status::InvalidArgument("init-local needs --writers K --root DIR --out FILE"));
    }
  } else if (a.command == "unlock") {
    if (a.config.empty() || !a.files.empty()) {
      return nutchfs::Err(Status::InvalidArgument("unlock needs --config FILE --writer I"));
    }
  } else if (a.command == "rereplicate") {
    if (a.config.empty() || !a.files.empty()) {
      return nutchfs::Err(Status::InvalidArgument("rereplicate needs --config FILE"));
    }
  } else if (a.command == "machines" || a.command == "config") {
    if (a.config.empty() || !a.files.empty() || (a.command == "config" && a.get.empty())) {
      return nutchfs::Err(Status::InvalidArgument(a.command == "config"
                                                      ? "config needs --config FILE --get KEY"
                                                      : "machines needs --config FILE"));
    }
  } else if (a.command == "rank" || (a.command == "launch" && a.rank)) {
    if (a.config.empty() || !a.files.empty()) {
      return nutchfs::Err(Status::InvalidArgument(
          a.command == "rank" ? "rank needs --config FILE --writer I and no call files"
                              : "launch --rank needs --config FILE and no call files"));
    }
  } else if (a.command == "create" || needs_files) {
    if (a.config.empty()) return nutchfs::Err(Status::InvalidArgument(a.command + " needs --config FILE"));
    if (needs_files == a.files.empty()) {
      return nutchfs::Err(Status::InvalidArgument(needs_files ? a.command + " needs call files"
                                                              : "create takes no arguments"));
    }
  } else {
    return nutchfs::Err(Status::InvalidArgument("unknown command '" + a.command + "'"));
  }
  if ((a.command == "run" || a.command == "rank") && !a.writer) {
    NUTCHFS_ASSIGN_OR_RETURN(auto rank, tools::RankFromEnvironment(&std::getenv));
    if (rank) {
      a.writer = rank->writer;
      a.writer_source = rank->source;
    }
  }
  NUTCHFS_RETURN_IF_ERROR(CheckWriterFlag(a));
  const tools::ProgramSpec& spec = tools::DistwriterSpec();
  NUTCHFS_RETURN_IF_ERROR(tools::CheckOptionsTaken(spec, *spec.FindCommand(a.command), given));
  if (!a.get.empty()) NUTCHFS_RETURN_IF_ERROR(tools::CheckConfigKey(a.get));
  if (!a.memory.empty()) {
    NUTCHFS_ASSIGN_OR_RETURN(a.memory_budget, tools::ParseMemorySize(a.memory));
    NUTCHFS_RETURN_IF_ERROR(tools::CheckMemoryBudget(*a.memory_budget, "--memory " + a.memory));
  }
  return a;
}

// --memory, else the config's `memory` (InvalidArgument naming its line if this machine
// cannot honour it).
Result<size_t> MemoryBudget(const Args& a, const distwriter::DistConfig& config) {
  if (a.memory_budget) return *a.memory_budget;
  const nutchfs::ConfigEntry* entry = config.cluster.file.Find("memory");
  if (entry == nullptr) return tools::kDefaultMemoryBudget;
  Status s = tools::CheckMemoryBudget(config.cluster.memory_bytes, "memory = " + entry->value);
  if (!s.ok()) return nutchfs::Err(config.cluster.file.ErrorAt(entry->line, s.message()));
  return config.cluster.memory_bytes;
}

Status InitLocal(const Args& a) {
  auto env = nutchfs::NewLocalEnv();
  return distwriter::InitLocal(*env, {a.writers, a.root, a.out, a.db, a.force});
}

// This process's CPU time (every thread, user and system), for the report.
double CpuSeconds() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

void PrintReport(const distwriter::RoundReport& r, int writer, std::FILE* out) {
  std::string seconds, waits, bytes, files;
  for (int s = 0; s <= distwriter::kCommitStage; ++s) {
    const std::string comma = s ? "," : "";
    seconds += fmt::format("{}{:.4f}", comma, r.stage_seconds[s]);
    waits += fmt::format("{}{:.4f}", comma, r.traffic[s].wait_seconds);
    bytes += fmt::format("{}{}", comma, r.traffic[s].bytes_sent);
    files += fmt::format("{}{}", comma, r.traffic[s].files_sent);
  }
  std::fprintf(out,
               "{\"writer\":%d,\"version\":%lu,\"already_applied\":%s,\"calls\":%lu,"
               "\"pages\":%lu,\"links\":%lu,\"stage_seconds\":[%s],\"wait_seconds\":[%s],"
               "\"bytes_sent\":[%s],\"files_sent\":[%s],\"cpu_seconds\":%.3f}\n",
               writer, r.version, r.already_applied ? "true" : "false", r.calls, r.pages, r.links,
               seconds.c_str(), waits.c_str(), bytes.c_str(), files.c_str(), CpuSeconds());
}

Status CheckWriterRange(const Args& a, const distwriter::DistConfig& config) {
  if (*a.writer < config.k) return Status::OK();
  return Status::InvalidArgument(fmt::format("{} {}: {} has {} writers (0..{})",
                                             a.writer_source, *a.writer, a.config, config.k,
                                             config.k - 1));
}

// Whether `distwriter unlock` would end writer's lease now (it is held, and not by a
// live process of this host): only then do messages suggest it.
bool UnlockWouldBreak(const distwriter::DistConfig& config, int writer) {
  auto fs = nutchfs::NutchFs::Open(config.cluster, "");
  if (!fs) return false;
  auto record = (*fs)->ReadLease(config.WriterFile(writer, "LOCK"));
  if (!record || !record->has_value() || (*record)->released) return false;
  const nutchfs::LockOwner me = nutchfs::CurrentProcess("");
  const nutchfs::LockOwner& o = **record;
  return !(o.host == me.host && o.boot_id == me.boot_id &&
           nutchfs::ProcessAlive(o.pid, o.proc_start));
}

// Ends writer I's lease unless a live process on this host holds it.
Status Unlock(const Args& a, const distwriter::DistConfig& config) {
  NUTCHFS_RETURN_IF_ERROR(CheckWriterRange(a, config));
  NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, ""));
  NUTCHFS_ASSIGN_OR_RETURN(std::string reason,
                           fs->BreakLease(config.WriterFile(*a.writer, "LOCK")));
  std::fprintf(stderr, "distwriter: ended the lease of %s: %s\n",
               config.Describe(*a.writer).c_str(), reason.c_str());
  return Status::OK();
}

// Writer a.writer's round; a lock left by a writer that is gone is named with how to
// remove it.
Result<distwriter::RoundReport> RunWriter(const Args& a, const distwriter::DistConfig& config,
                                          const distwriter::RunOptions& options) {
  auto ran = distwriter::RunRound(config, options);
  if (!ran && ran.error().IsBusy() && UnlockWouldBreak(config, *a.writer)) {
    return nutchfs::Err(Status::Busy(
        fmt::format("{} (if writer {} runs no more, `distwriter unlock --config {} --writer {}` "
                    "ends its lease)",
                    ran.error().message(), *a.writer, a.config, *a.writer)));
  }
  return ran;
}

// A rank writer's report line: what it did, its seconds, and its bytes sent.
void PrintRankReport(const distwriter::RoundReport& r, int writer, double seconds,
                     const std::vector<webdb::IterationReport>& iterations, std::FILE* out) {
  std::string its;
  for (size_t i = 0; i < iterations.size(); ++i) {
    its += fmt::format("{}{:.4f}", i ? "," : "", iterations[i].seconds);
  }
  std::fprintf(out,
               "{\"writer\":%d,\"version\":%lu,\"already_applied\":%s,\"pages\":%lu,"
               "\"links\":%lu,\"iterations\":%u,\"l1\":%s,\"seconds\":%.4f,"
               "\"iteration_seconds\":[%s],\"bytes_sent\":%lu}\n",
               writer, r.version, r.already_applied ? "true" : "false", r.pages, r.links,
               r.rank ? r.rank->done : 0, fmt::format("{}", r.rank ? r.rank->l1 : 0.0).c_str(),
               seconds, its.c_str(), r.bytes_sent);
}

// `distwriter rank`: writer a.writer's part of a rank round.
Status Rank(const Args& a, const distwriter::DistConfig& config) {
  NUTCHFS_RETURN_IF_ERROR(CheckWriterRange(a, config));
  NUTCHFS_ASSIGN_OR_RETURN(size_t memory, MemoryBudget(a, config));
  const auto start = std::chrono::steady_clock::now();
  // Before any thread starts: they all leave the stop signals to its thread.
  tools::StopSignals stop;
  tools::ProgressReporter reporter(stderr, fmt::format("distwriter: writer {}", *a.writer));
  std::vector<webdb::IterationReport> iterations;
  distwriter::RunOptions options;
  options.writer = *a.writer;
  options.memory_budget = memory;
  options.before_step = tools::StepObserver(*a.writer);
  options.rank = a.rank_options;
  options.stop = &stop.signal();
  options.on_iteration = [&](const webdb::IterationReport& it) {
    iterations.push_back(it);
    if (a.quiet) return;
    std::fprintf(stderr, "distwriter: writer %d: rank iteration %u: L1 change %s, %.3f s\n",
                 *a.writer, it.iteration, fmt::format("{:.6g}", it.l1).c_str(), it.seconds);
  };
  if (!a.quiet) options.progress = reporter.AsProgressFn();
  NUTCHFS_ASSIGN_OR_RETURN(auto report, RunWriter(a, config, options));
  if (report.already_applied && !a.quiet) {
    std::fprintf(stderr, "distwriter: writer %d: round %lu is this rank's result already\n",
                 *a.writer, report.version);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PrintRankReport(report, *a.writer, seconds, iterations, stdout);
  return Status::OK();
}

Status Run(const Args& a, const distwriter::DistConfig& config) {
  NUTCHFS_RETURN_IF_ERROR(CheckWriterRange(a, config));
  if (a.writer_source != "--writer") {
    std::fprintf(stderr, "distwriter: writer %d, from %s\n", *a.writer, a.writer_source.c_str());
  }
  NUTCHFS_ASSIGN_OR_RETURN(size_t memory, MemoryBudget(a, config));
  // Before any thread starts: they all leave the stop signals to its thread.
  tools::StopSignals stop;
  tools::ProgressReporter reporter(stderr, fmt::format("distwriter: writer {}", *a.writer));
  distwriter::RunOptions options;
  options.writer = *a.writer;
  options.call_files = a.files;
  options.memory_budget = memory;
  options.before_step = tools::StepObserver(*a.writer);
  options.session = a.session;
  options.stop = &stop.signal();
  options.machine = a.machine;
  if (!a.quiet) options.progress = reporter.AsProgressFn();
  NUTCHFS_ASSIGN_OR_RETURN(auto report, RunWriter(a, config, options));
  if (report.already_applied && !a.quiet) {
    std::fprintf(stderr,
                 "distwriter: writer %d: these calls were applied in round %lu already%s\n",
                 *a.writer, report.version,
                 a.session.empty() ? " (without --session the same calls are that round's: "
                                     "to apply them in a new round, give all its writers "
                                     "--session NAME)"
                                   : "");
  }
  PrintReport(report, *a.writer, stdout);
  return Status::OK();
}

// Restores the copies a replaced machine lacks, and says what it did on stdout.
Status Rereplicate(const Args& a, const distwriter::DistConfig& config) {
  const auto observe = tools::StepObserver();
  auto hook = [&](std::string_view step) {
    if (observe) observe(step);
    if (!a.quiet) {
      std::fprintf(stderr, "distwriter: rereplicate: %.*s\n", static_cast<int>(step.size()),
                   step.data());
    }
  };
  NUTCHFS_ASSIGN_OR_RETURN(distwriter::RereplicateResult r,
                           distwriter::RereplicateDistDb(config, hook));
  if (r.nothing()) {
    std::printf("nothing to restore: every machine holds its copies of round %lu\n", r.version);
    return Status::OK();
  }
  std::printf("copied %d section file(s) and %d round file(s)", r.section_files, r.round_files);
  if (!r.fresh.empty()) {
    std::string machines;
    for (const std::string& m : r.fresh) machines += (machines.empty() ? "" : ", ") + m;
    std::printf(" (replaced machines: %s)", machines.c_str());
  }
  std::printf(r.published ? "; round %lu names the restored holders\n"
                          : "; round %lu names every holder already\n",
              r.version);
  return Status::OK();
}

std::string SelfPath() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "distwriter";
}

Status Dispatch(const Args& a) {
  if (a.command == "init-local") return InitLocal(a);
  NUTCHFS_ASSIGN_OR_RETURN(auto config, distwriter::DistConfig::Load(a.config));
  if (a.command == "run") return Run(a, config);
  if (a.command == "rank") return Rank(a, config);
  if (a.command == "unlock") return Unlock(a, config);
  if (a.command == "rereplicate") return Rereplicate(a, config);
  if (a.command == "create") return distwriter::CreateDistDb(config, a.sample, a.keep);
  if (a.command == "machines") return tools::PrintWriterMachines(config, stdout);
  if (a.command == "config") return tools::PrintConfigValue(config, a.get, stdout);
  // Each writer checks the budget (the config's, unless --memory) against its machine.
  distwriter::LaunchOptions launch;
  launch.config_path = std::filesystem::absolute(a.config).string();
  launch.call_files = a.files;
  launch.distwriter_binary = SelfPath();
  launch.run_flags = {"--log-level", a.log_level};
  launch.rank = a.rank_options;
  if (!a.memory.empty()) launch.run_flags.insert(launch.run_flags.end(), {"--memory", a.memory});
  if (a.quiet) launch.run_flags.push_back("--quiet");
  launch.session = a.session;
  launch.json = a.json;
  tools::ProgressReporter reporter(stderr, "distwriter: launch");
  if (!a.quiet) launch.progress = reporter.AsProgressFn();
  return distwriter::Launch(config, launch, stdout);
}

}  // namespace

int main(int argc, char** argv) {
  tools::KeepFreedMemory();
  if (tools::IsVersionRequest(argc, argv)) {
    std::puts(tools::VersionLine(tools::DistwriterSpec()).c_str());
    return tools::kExitOk;
  }
  auto args = Parse(argc, argv);
  if (args && args->help) {
    auto help = tools::HelpFor(tools::DistwriterSpec(), args->command);
    if (help) {
      std::fputs(help->c_str(), stdout);
      return tools::kExitOk;
    }
    args = nutchfs::Err(help.error());
  }
  if (!args) {
    std::fprintf(stderr, "distwriter: %s\nRun 'distwriter help' for usage.\n",
                 args.error().message().c_str());
    return tools::kExitUsage;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("distwriter"));
  spdlog::set_level(spdlog::level::from_str(args->log_level));
  Status s = Dispatch(*args);
  // Output that could not be written (a full disk, a closed pipe) is a failure too.
  if (s.ok() && (std::fflush(stdout) != 0 || std::ferror(stdout))) {
    s = Status::IOError("writing standard output failed");
  }
  if (!s.ok()) {
    std::fprintf(stderr, "distwriter: %s\n", s.message().c_str());
    if (args->command == "unlock" && s.IsNotFound()) return tools::kExitNotFound;
    return tools::ExitCodeFor(s);
  }
  return tools::kExitOk;
}
