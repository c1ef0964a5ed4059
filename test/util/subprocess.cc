#include "test/util/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace testutil {
namespace {

// This process's environment with `extra` added, same-named entries replaced.
std::vector<std::string> MergedEnvironment(const std::vector<std::string>& extra) {
  std::vector<std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const std::string& x : extra) replaced = replaced || x.starts_with(name);
    if (!replaced) merged.push_back(entry);
  }
  merged.insert(merged.end(), extra.begin(), extra.end());
  return merged;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string ProcessResult::Describe() const {
  std::string how =
      signal != 0 ? "signal " + std::to_string(signal) : "exit " + std::to_string(exit_code);
  return how + ": " + err;
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::unique_ptr<Subprocess> Subprocess::Start(const std::vector<std::string>& argv,
                                              const std::vector<std::string>& env,
                                              const std::string& output_prefix) {
  const std::string out = output_prefix + ".out", err = output_prefix + ".err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> args = argv, vars = MergedEnvironment(env);
  std::vector<char*> c_args = CStrings(args), c_vars = CStrings(vars);
  pid_t pid = -1;
  const int rc =
      ::posix_spawn(&pid, argv.at(0).c_str(), &actions, nullptr, c_args.data(), c_vars.data());
  posix_spawn_file_actions_destroy(&actions);
  INFO("posix_spawn " << argv.at(0) << ": " << std::strerror(rc));
  REQUIRE(rc == 0);
  return std::unique_ptr<Subprocess>(new Subprocess(pid, output_prefix));
}

Subprocess::~Subprocess() {
  if (reaped_) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &wait_status_, 0);  // best effort: the test has failed already
}

bool Subprocess::Finished() {
  if (reaped_) return true;
  const pid_t r = ::waitpid(pid_, &wait_status_, WNOHANG);
  INFO("waitpid " << pid_ << ": " << std::strerror(errno));
  REQUIRE(r >= 0);
  reaped_ = r == pid_;
  return reaped_;
}

void Subprocess::Kill(int sig) {
  if (!reaped_) ::kill(pid_, sig);
}

ProcessResult Subprocess::Wait(std::chrono::milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (!Finished()) {
    if (std::chrono::steady_clock::now() > end) {
      Kill(SIGKILL);
      FAIL("process " << pid_ << " (" << output_prefix_ << ") still running after "
                      << deadline.count() << " ms; killed");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ProcessResult r;
  if (WIFEXITED(wait_status_)) r.exit_code = WEXITSTATUS(wait_status_);
  if (WIFSIGNALED(wait_status_)) r.signal = WTERMSIG(wait_status_);
  r.out = ReadFileOrEmpty(output_prefix_ + ".out");
  r.err = ReadFileOrEmpty(output_prefix_ + ".err");
  return r;
}

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         const std::string& output_prefix) {
  return Subprocess::Start(argv, env, output_prefix)->Wait();
}

}  // namespace testutil
