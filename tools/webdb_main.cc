// The `webdb` command: a single-machine WebDB from the shell (docs/CLI.md).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>

#include "nutchfs/env.h"
#include "tools/allocator.h"
#include "tools/cli_args.h"
#include "tools/cli_commands.h"
#include "tools/cli_spec.h"

namespace {

void Fail(const std::string& message) { std::fprintf(stderr, "webdb: %s\n", message.c_str()); }

// Logs go to stderr: stdout carries the command's JSON output.
void SetUpLogging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("webdb");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace

int main(int argc, char** argv) {
  tools::KeepFreedMemory();
  if (tools::IsVersionRequest(argc, argv)) {
    std::puts(tools::VersionLine(tools::WebdbSpec()).c_str());
    return tools::kExitOk;
  }
  auto inv = tools::ParseCommandLine(argc, argv);
  if (inv && inv->help) {
    auto help = tools::HelpFor(tools::WebdbSpec(), inv->help_command);
    if (help) {
      std::fputs(help->c_str(), stdout);
      return tools::kExitOk;
    }
    inv = nutchfs::Err(help.error());
  }
  if (!inv) {
    Fail(inv.error().message());
    std::fputs("Run 'webdb help' for usage.\n", stderr);
    return tools::kExitUsage;
  }
  SetUpLogging(inv->log_level);
  std::unique_ptr<nutchfs::Env> env = nutchfs::NewLocalEnv();
  auto code = tools::RunCommand(*env, *inv, stdout);
  if (!code) {
    Fail(code.error().message());
    return tools::ExitCodeFor(code.error());
  }
  return *code;
}
