#include "test/util/test_hosts.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

namespace testutil {
namespace {

struct RunResult {
  int exit_code = -1;
  std::string output;
};

RunResult Run(const std::string& command) {
  RunResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    result.output = "popen failed for: " + command;
    return result;
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) result.output.append(buf, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::map<std::string, std::string> ReadEnvFile(const std::string& path) {
  std::map<std::string, std::string> vars;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) vars[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return vars;
}

}  // namespace

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

TestHosts::TestHosts(int n, std::string script) : script_(std::move(script)) {
  if (script_.empty()) FAIL("TestHosts: PROJECT_SOURCE_DIR is not defined for this binary");
  char tmpl[] = "/tmp/testhosts.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) FAIL("TestHosts: mkdtemp failed");
  dir_ = tmpl;
  const RunResult up =
      Run(ShellQuote(script_) + " up " + ShellQuote(dir_) + " " + std::to_string(n));
  if (up.exit_code != 0) {
    const RunResult down = Run(ShellQuote(script_) + " down " + ShellQuote(dir_));
    ::rmdir(dir_.c_str());
    FAIL("scripts/testhosts.sh up " << dir_ << " " << n << " failed (exit " << up.exit_code
                                    << "):\n"
                                    << up.output << "\ndown: " << down.output);
  }
  if (!LoadHostsEnv()) {
    const RunResult down = Run(ShellQuote(script_) + " down " + ShellQuote(dir_));
    FAIL("TestHosts: " << dir_ << "/hosts.env is incomplete; down: " << down.output);
  }
}

TestHosts::~TestHosts() {
  const RunResult down = Run(ShellQuote(script_) + " down " + ShellQuote(dir_));
  if (down.exit_code != 0) {
    std::fprintf(stderr, "scripts/testhosts.sh down %s failed (exit %d):\n%s\n", dir_.c_str(),
                 down.exit_code, down.output.c_str());
  }
}

bool TestHosts::LoadHostsEnv() {
  auto vars = ReadEnvFile(dir_ + "/hosts.env");
  client_key_ = vars["CLIENT_KEY"];
  known_hosts_ = vars["KNOWN_HOSTS"];
  shared_dir_ = vars["SHARED_DIR"];
  const int n = std::atoi(vars["TESTHOSTS_N"].c_str());
  for (int i = 0; i < n; ++i) {
    const std::string p = "H" + std::to_string(i) + "_";
    TestHost h;
    h.name = vars[p + "NAME"];
    h.address = vars[p + "ADDR"];
    h.port = std::atoi(vars[p + "PORT"].c_str());
    h.netns = vars[p + "NETNS"];
    h.root = vars[p + "ROOT"];
    h.host_key = vars[p + "HOST_KEY"];
    hosts_.push_back(std::move(h));
  }
  return !hosts_.empty() && !client_key_.empty() && !hosts_.back().address.empty();
}

nutchfs::SftpOptions TestHosts::SftpOptionsFor(int i) const {
  nutchfs::SftpOptions options;
  options.user = "root";
  options.host = host(i).address;
  options.port = host(i).port;
  options.identity_file = client_key_;
  options.known_hosts_file = known_hosts_;
  return options;
}

TestHosts::ExecResult TestHosts::Exec(int i, const std::string& cmd) const {
  const RunResult r = Run(ShellQuote(script_) + " exec " + ShellQuote(dir_) + " " + host(i).name +
                          " sh -c " + ShellQuote(cmd));
  return ExecResult{r.exit_code, r.output};
}

std::string TestHosts::Script(const std::string& args) const {
  const RunResult r = Run(ShellQuote(script_) + " " + args);
  if (r.exit_code != 0) {
    FAIL("scripts/testhosts.sh " << args << " failed (exit " << r.exit_code << "):\n" << r.output);
  }
  return r.output;
}

void TestHosts::StopSshd(int i) { Script("stop " + ShellQuote(dir_) + " " + host(i).name); }

void TestHosts::StartSshd(int i) { Script("start " + ShellQuote(dir_) + " " + host(i).name); }

}  // namespace testutil
