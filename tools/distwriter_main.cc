// The `distwriter` command (docs/DISTRIBUTED.md, spec/interfaces.md section 3):
//   distwriter init-local --writers K --root DIR --out FILE [--db NAME]
//   distwriter create --config FILE [--sample URLFILE]
//   distwriter run --config FILE --writer I CALLFILE...
//   distwriter launch --config FILE CALLFILE...
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "distwriter/create.h"
#include "distwriter/launch.h"
#include "distwriter/round.h"
#include "tools/cli_args.h"
#include "tools/cli_commands.h"
#include "tools/kill_hook.h"
#include "tools/progress_reporter.h"

namespace po = boost::program_options;
using nutchfs::Result;
using nutchfs::Status;

namespace {

constexpr char kUsage[] =
    "usage:\n"
    "  distwriter init-local --writers K --root DIR --out FILE [--db NAME]\n"
    "  distwriter create --config FILE [--sample URLFILE]\n"
    "  distwriter run --config FILE --writer I [options] CALLFILE...\n"
    "  distwriter launch --config FILE [options] CALLFILE...\n"
    "options: --memory SIZE (default 256M), --quiet, --log-level LEVEL\n";

struct Args {
  std::string command, config, root, out, db = "webdb", sample, memory = "256M", log_level = "warn";
  int writers = 0, writer = -1;
  bool quiet = false, help = false;
  std::vector<std::string> files;
};

Result<Args> Parse(int argc, char** argv) {
  Args a;
  po::options_description opts;
  opts.add_options()("help", po::bool_switch(&a.help))("config", po::value(&a.config))(
      "root", po::value(&a.root))("out", po::value(&a.out))("db", po::value(&a.db))(
      "sample", po::value(&a.sample))("memory", po::value(&a.memory))(
      "log-level", po::value(&a.log_level))("writers", po::value(&a.writers))(
      "writer", po::value(&a.writer))("quiet", po::bool_switch(&a.quiet))(
      "args", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("args", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return nutchfs::Err(Status::InvalidArgument(e.what()));
  }
  if (vm.count("args")) a.files = vm["args"].as<std::vector<std::string>>();
  if (a.help) return a;
  if (a.files.empty()) return nutchfs::Err(Status::InvalidArgument("no command given"));
  a.command = a.files.front();
  a.files.erase(a.files.begin());
  const bool needs_files = a.command == "run" || a.command == "launch";
  if (a.command == "init-local") {
    if (a.writers < 1 || a.root.empty() || a.out.empty() || !a.files.empty()) {
      return nutchfs::Err(Status::InvalidArgument("init-local needs --writers K --root DIR --out FILE"));
    }
  } else if (a.command == "create" || needs_files) {
    if (a.config.empty()) return nutchfs::Err(Status::InvalidArgument(a.command + " needs --config FILE"));
    if (needs_files == a.files.empty()) {
      return nutchfs::Err(Status::InvalidArgument(needs_files ? a.command + " needs call files"
                                                              : "create takes no arguments"));
    }
    if ((a.command == "run") != (a.writer >= 0)) {
      return nutchfs::Err(Status::InvalidArgument("--writer I goes with run, and only with run"));
    }
  } else {
    return nutchfs::Err(Status::InvalidArgument("unknown command '" + a.command + "'"));
  }
  return a;
}

Status InitLocal(const Args& a) {
  const std::string root = std::filesystem::absolute(a.root).lexically_normal().string();
  std::string text = fmt::format(
      "# {} writer processes on this host, each with its own root directory.\n"
      "# Made by: distwriter init-local --writers {} --root {}\n"
      "db = {}\nwriters = {}\ntimeout_ms = 600000\n",
      a.writers, a.writers, root, a.db, a.writers);
  for (int i = 0; i < a.writers; ++i) {
    text += fmt::format("\n[machine.m{}]\nlocation = {}/m{}\n\n[writer.{}]\nmachine = m{}\n", i, root,
                        i, i, i);
  }
  auto env = nutchfs::NewLocalEnv();
  NUTCHFS_RETURN_IF_ERROR(env->CreateDirs(root));
  return nutchfs::WriteFileAtomically(*env, a.out, text);
}

void PrintReport(const distwriter::RoundReport& r, int writer, std::FILE* out) {
  std::string seconds, bytes;
  for (int s = 0; s <= distwriter::kCommitStage; ++s) {
    seconds += fmt::format("{}{:.4f}", s ? "," : "", r.stage_seconds[s]);
    bytes += fmt::format("{}{}", s ? "," : "", r.traffic[s].bytes_sent);
  }
  std::fprintf(out,
               "{\"writer\":%d,\"version\":%lu,\"already_applied\":%s,\"calls\":%lu,"
               "\"pages\":%lu,\"links\":%lu,\"stage_seconds\":[%s],\"bytes_sent\":[%s]}\n",
               writer, r.version, r.already_applied ? "true" : "false", r.calls, r.pages, r.links,
               seconds.c_str(), bytes.c_str());
}

Status Run(const Args& a, size_t memory) {
  NUTCHFS_ASSIGN_OR_RETURN(auto config, distwriter::DistConfig::Load(a.config));
  tools::ProgressReporter reporter(stderr);
  distwriter::RunOptions options{a.writer, a.files, memory, {}, tools::KillHookFromEnvironment()};
  if (!a.quiet) options.progress = reporter.AsProgressFn();
  NUTCHFS_ASSIGN_OR_RETURN(auto report, distwriter::RunRound(config, options));
  if (report.already_applied && !a.quiet) {
    std::fprintf(stderr, "distwriter: writer %d: these calls were applied in round %lu already\n",
                 a.writer, report.version);
  }
  PrintReport(report, a.writer, stdout);
  return Status::OK();
}

std::string SelfPath() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "distwriter";
}

Status Dispatch(const Args& a) {
  if (a.command == "init-local") return InitLocal(a);
  NUTCHFS_ASSIGN_OR_RETURN(size_t memory, tools::ParseMemorySize(a.memory));
  if (a.command == "run") return Run(a, memory);
  NUTCHFS_ASSIGN_OR_RETURN(auto config, distwriter::DistConfig::Load(a.config));
  if (a.command == "create") return distwriter::CreateDistDb(config, a.sample);
  distwriter::LaunchOptions launch{std::filesystem::absolute(a.config).string(), a.files, SelfPath(),
                                   {"--memory", a.memory, "--log-level", a.log_level}};
  if (a.quiet) launch.run_flags.push_back("--quiet");
  return distwriter::Launch(config, launch, stdout);
}

}  // namespace

int main(int argc, char** argv) {
  auto args = Parse(argc, argv);
  if (!args) {
    std::fprintf(stderr, "distwriter: %s\n%s", args.error().message().c_str(), kUsage);
    return tools::kExitUsage;
  }
  if (args->help) {
    std::fputs(kUsage, stdout);
    return tools::kExitOk;
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("distwriter"));
  spdlog::set_level(spdlog::level::from_str(args->log_level));
  Status s = Dispatch(*args);
  if (!s.ok()) {
    std::fprintf(stderr, "distwriter: %s\n", s.message().c_str());
    return tools::ExitCodeFor(s);
  }
  return tools::kExitOk;
}
