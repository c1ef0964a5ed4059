// nutchfs: the operator's command for a NutchFS cluster (docs/NUTCHFS.md, "Command").
// Exit codes (spec/interfaces.md section 3): 0 ok, 1 not found, 2 usage, 3 bad input
// (config, names), 4 I/O, peer or lock failure.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "nutchfs/nutchfs.h"
#include "tools/cli_parser.h"
#include "tools/cli_spec.h"

using nutchfs::Status;

namespace {

enum Exit { kOk = 0, kNotFound = 1, kUsage = 2, kBadInput = 3, kIo = 4 };

struct Args {
  std::string command;
  std::vector<std::string> operands;
  std::string config;
  std::string machine;
  std::string db;
  bool verify = false;
  bool force = false;
  bool break_lock = false;
  bool help = false;
  std::string log_level = "warn";
};

int ExitFor(const Status& s) {
  if (s.ok()) return kOk;
  std::cerr << "nutchfs: " << s.ToString() << "\n";
  if (s.IsNotFound()) return kNotFound;
  if (s.IsInvalidArgument()) return kBadInput;
  return kIo;
}

// Prints a usage error and how to get help; false.
bool UsageError(const std::string& what) {
  std::cerr << "nutchfs: " << what << "\nRun 'nutchfs help' for usage.\n";
  return false;
}

// Parses argv; false (after printing why) on a usage error.
bool ParseCommandLine(int argc, char** argv, Args* args) {
  const tools::ProgramSpec& spec = tools::NutchfsSpec();
  auto given = tools::ParseArgs(spec, argc, argv);
  if (!given) return UsageError(given.error().message());
  if (!given->words.empty()) {
    args->command = given->words.front();
    args->operands.assign(given->words.begin() + 1, given->words.end());
  }
  auto text = [&](const char* name, std::string* to) { given->CopyValue(name, to); };
  text("config", &args->config);
  text("machine", &args->machine);
  text("db", &args->db);
  text("log-level", &args->log_level);
  args->help = given->Switch("help");
  args->verify = given->Switch("verify");
  args->break_lock = given->Switch("break");
  args->force = given->Switch("force");
  // `nutchfs help [CMD]` and `nutchfs CMD --help` are the help of CMD.
  if (args->command == "help") {
    if (args->operands.size() > 1) return UsageError("usage: nutchfs help [COMMAND]");
    if (!args->operands.empty()) args->command = args->operands.front();
    if (args->operands.empty() && !args->help) args->command.clear();  // `help --help`: help's
    args->help = true;
  }
  if (args->help) return true;
  const tools::CommandSpec* command = spec.FindCommand(args->command);
  if (args->command.empty() || args->config.empty()) {
    return UsageError("a command and --config are required");
  }
  if (command == nullptr) return UsageError("unknown command '" + args->command + "'");
  Status taken = tools::CheckOptionsTaken(spec, *command, *given);
  if (!taken.ok()) return UsageError(taken.message());
  // locks takes GROUP NAME with --break, at most GROUP without.
  const bool locks_shape =
      args->command != "locks" ||
      (args->break_lock ? args->operands.size() == 2 : args->operands.size() <= 1);
  if (args->operands.size() < command->min_operands ||
      args->operands.size() > command->max_operands || !locks_shape) {
    return UsageError("usage: " + command->synopsis);
  }
  return true;
}

// The machine this command runs as: --machine, else the one whose ssh host is this host.
std::string OwnMachine(const Args& args, const nutchfs::ClusterConfig& config) {
  if (!args.machine.empty()) return args.machine;
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) return "";
  const nutchfs::MachineConfig* m = config.MachineOnHost(host);
  return m == nullptr ? "" : m->name;
}

int RunLs(nutchfs::NutchFs& fs, const Args& args, const std::string& db) {
  auto names = fs.List(db, args.operands[0], args.operands.size() > 1 ? args.operands[1] : "");
  if (!names) return ExitFor(names.error());
  for (const std::string& name : *names) std::cout << name << "\n";
  return kOk;
}

int RunPut(nutchfs::NutchFs& fs, const Args& args, const std::string& db) {
  auto file = nutchfs::NutchFile::Make(db, args.operands[1], args.operands[2]);
  if (!file) return ExitFor(file.error());
  auto info = fs.Put(args.operands[0], *file);
  if (!info) return ExitFor(info.error());
  std::cout << info->size << " " << info->sha256 << "\n";
  return kOk;
}

int RunGet(nutchfs::NutchFs& fs, const Args& args, const std::string& db) {
  auto file = nutchfs::NutchFile::Make(db, args.operands[0], args.operands[1]);
  if (!file) return ExitFor(file.error());
  auto info = fs.Get(*file, args.operands[2]);
  if (!info) return ExitFor(info.error());
  std::cout << info->size << " " << info->sha256 << "\n";
  return kOk;
}

int RunRm(nutchfs::NutchFs& fs, const Args& args, const std::string& db) {
  auto file = nutchfs::NutchFile::Make(db, args.operands[0], args.operands[1]);
  if (!file) return ExitFor(file.error());
  return ExitFor(fs.Delete(*file));
}

void PrintLock(const nutchfs::LockInfo& lock, int64_t now_ms) {
  std::cout << lock.lock.group << "/" << lock.lock.name << "\t";
  if (!lock.owner) {
    std::cout << "unreadable: " << lock.owner.error().message() << "\n";
    return;
  }
  const nutchfs::LockOwner& o = *lock.owner;
  std::cout << "host=" << o.host << " pid=" << o.pid << " machine=" << o.machine
            << " age_ms=" << now_ms - o.acquired_ms << "\n";
}

int RunLocks(nutchfs::NutchFs& fs, const Args& args, const std::string& db) {
  if (args.break_lock) {
    auto lock = nutchfs::NutchFile::Make(db, args.operands[0], args.operands[1]);
    if (!lock) return ExitFor(lock.error());
    auto reason = fs.BreakLock(*lock, args.force);
    if (!reason && reason.error().IsBusy() && !args.force) {
      return ExitFor(Status::Busy(reason.error().message() +
                                  " (--force breaks another host's lock older than "
                                  "lock_lease_ms, or an unreadable one)"));
    }
    if (!reason) return ExitFor(reason.error());
    std::cout << "broke " << args.operands[0] << "/" << args.operands[1] << ": " << *reason << "\n";
    return kOk;
  }
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  for (const nutchfs::GroupConfig& group : fs.config().groups) {
    if (!args.operands.empty() && group.name != args.operands[0]) continue;
    auto locks = fs.ListLocks(db, group.name);
    if (!locks) return ExitFor(locks.error());
    for (const nutchfs::LockInfo& lock : *locks) PrintLock(lock, now_ms);
  }
  return kOk;
}

int Dispatch(nutchfs::NutchFs& fs, const Args& args, const std::string& db) {
  if (args.command == "ls") return RunLs(fs, args, db);
  if (args.command == "put") return RunPut(fs, args, db);
  if (args.command == "get") return RunGet(fs, args, db);
  if (args.command == "rm") return RunRm(fs, args, db);
  return RunLocks(fs, args, db);  // ParseArgs knows no other command
}

}  // namespace

int main(int argc, char** argv) {
  if (tools::IsVersionRequest(argc, argv)) {
    std::cout << tools::VersionLine(tools::NutchfsSpec()) << std::endl;
    return std::cout ? kOk : kIo;
  }
  Args args;
  if (!ParseCommandLine(argc, argv, &args)) return kUsage;
  if (args.help) {
    auto help = tools::HelpFor(tools::NutchfsSpec(), args.command);
    if (!help) return UsageError(help.error().message()) ? kOk : kUsage;
    std::cout << *help << std::flush;
    return std::cout ? kOk : kIo;
  }
  spdlog::set_level(spdlog::level::from_str(args.log_level));
  auto config = nutchfs::ClusterConfig::Load(args.config);
  if (!config) {
    ExitFor(config.error());
    return config.error().IsIOError() ? kIo : kBadInput;  // a missing config is bad input
  }
  const std::string db = args.db.empty() ? config->db : args.db;
  const std::string machine = OwnMachine(args, *config);
  nutchfs::NutchFsOptions options;
  options.verify_checksum = args.verify;
  auto fs = nutchfs::NutchFs::Open(std::move(*config), machine, options);
  if (!fs) return ExitFor(fs.error());
  return Dispatch(**fs, args, db);
}
