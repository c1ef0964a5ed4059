// The `webdb` command: a single-machine WebDB from the shell (docs/CLI.md).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>

#include "distwriter/dist_reader.h"
#include "nutchfs/env.h"
#include "webdb/cli_args.h"
#include "webdb/cli_commands.h"

namespace {

void Fail(const std::string& message) { std::fprintf(stderr, "webdb: %s\n", message.c_str()); }

// Logs go to stderr: stdout carries the command's JSON output.
void SetUpLogging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("webdb");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
}

// A distributed db through its cluster config, else the single-machine db.
nutchfs::Result<std::unique_ptr<webdb::Reader>> OpenReader(nutchfs::Env& env,
                                                           const webdb::Invocation& inv) {
  if (!inv.config.empty()) return distwriter::OpenDistReader(inv.config);
  return webdb::OpenLocalReader(env, inv);
}

}  // namespace

int main(int argc, char** argv) {
  auto inv = webdb::ParseCommandLine(argc, argv);
  if (!inv) {
    Fail(inv.error().message());
    std::fputs("Run 'webdb --help' for usage.\n", stderr);
    return webdb::kExitUsage;
  }
  if (inv->help) {
    std::fputs(webdb::UsageText().c_str(), stdout);
    return webdb::kExitOk;
  }
  SetUpLogging(inv->log_level);
  std::unique_ptr<nutchfs::Env> env = nutchfs::NewLocalEnv();
  auto code = webdb::RunCommand(*env, *inv, stdout, OpenReader);
  if (!code) {
    Fail(code.error().message());
    return webdb::ExitCodeFor(code.error());
  }
  return *code;
}
