// nutchfs: the operator's command for a NutchFS cluster (docs/NUTCHFS.md, "Command").
// Exit codes (spec/interfaces.md section 3): 0 ok, 1 not found, 2 usage, 3 bad input
// (config, names), 4 I/O, peer or lock failure.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "nutchfs/nutchfs.h"

namespace po = boost::program_options;
using nutchfs::Status;

namespace {

constexpr char kUsageText[] =
    "usage: nutchfs COMMAND --config FILE [--machine NAME] [--db NAME] [options] ARGS\n"
    "  ls GROUP [DIR]               visible files of a share group\n"
    "  put LOCALFILE GROUP NAME     publish a file to every machine of its group\n"
    "  get GROUP NAME LOCALFILE     copy a file to a local file\n"
    "  rm GROUP NAME                delete a file at every machine of its group\n"
    "  locks [GROUP]                list locks (of every group by default)\n"
    "  locks --break GROUP NAME     break a stale lock (--force: another host's lock\n"
    "                               older than lock_lease_ms)\n";

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

// Parses argv; false (after printing why) on a usage error.
bool ParseArgs(int argc, char** argv, Args* args) {
  po::options_description opts("options");
  opts.add_options()("help,h", po::bool_switch(&args->help), "this text")(
      "config", po::value(&args->config), "cluster config file")(
      "machine", po::value(&args->machine), "this machine's name in the config")(
      "db", po::value(&args->db), "db name (default: the config's db)")(
      "verify", po::bool_switch(&args->verify), "re-read copies and compare SHA-256")(
      "break", po::bool_switch(&args->break_lock), "locks: break the named lock")(
      "force", po::bool_switch(&args->force), "locks --break: also another host's old lock")(
      "log-level", po::value(&args->log_level), "trace|debug|info|warn|error|off")(
      "command", po::value(&args->command), "")("operand", po::value(&args->operands)->composing(),
                                                "");
  po::positional_options_description positional;
  positional.add("command", 1).add("operand", -1);
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(opts).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "nutchfs: " << e.what() << "\n" << kUsageText;
    return false;
  }
  if (args->help) return true;
  if (args->command.empty() || args->config.empty()) {
    std::cerr << "nutchfs: a command and --config are required\n" << kUsageText;
    return false;
  }
  return true;
}

bool Arity(const Args& args, size_t min, size_t max) {
  if (args.operands.size() >= min && args.operands.size() <= max) return true;
  std::cerr << "nutchfs " << args.command << ": wrong number of arguments\n" << kUsageText;
  return false;
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
  if (!Arity(args, 1, 2)) return kUsage;
  auto names = fs.List(db, args.operands[0], args.operands.size() > 1 ? args.operands[1] : "");
  if (!names) return ExitFor(names.error());
  for (const std::string& name : *names) std::cout << name << "\n";
  return kOk;
}

int RunPut(nutchfs::NutchFs& fs, const Args& args, const std::string& db) {
  if (!Arity(args, 3, 3)) return kUsage;
  auto file = nutchfs::NutchFile::Make(db, args.operands[1], args.operands[2]);
  if (!file) return ExitFor(file.error());
  auto info = fs.Put(args.operands[0], *file);
  if (!info) return ExitFor(info.error());
  std::cout << info->size << " " << info->sha256 << "\n";
  return kOk;
}

int RunGet(nutchfs::NutchFs& fs, const Args& args, const std::string& db) {
  if (!Arity(args, 3, 3)) return kUsage;
  auto file = nutchfs::NutchFile::Make(db, args.operands[0], args.operands[1]);
  if (!file) return ExitFor(file.error());
  auto info = fs.Get(*file, args.operands[2]);
  if (!info) return ExitFor(info.error());
  std::cout << info->size << " " << info->sha256 << "\n";
  return kOk;
}

int RunRm(nutchfs::NutchFs& fs, const Args& args, const std::string& db) {
  if (!Arity(args, 2, 2)) return kUsage;
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
    if (!Arity(args, 2, 2)) return kUsage;
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
  if (!Arity(args, 0, 1)) return kUsage;
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
  if (args.command == "locks") return RunLocks(fs, args, db);
  std::cerr << "nutchfs: unknown command '" << args.command << "'\n" << kUsageText;
  return kUsage;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) return kUsage;
  if (args.help) {
    std::cout << kUsageText << std::flush;
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
