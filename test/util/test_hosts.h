// TestHosts: simulated machines for one test — N network namespaces, each with its own
// sshd, set up by scripts/testhosts.sh (see docs/TEST-HOSTS.md) in a fresh directory
// under /tmp and torn down again by the destructor, whatever happened.
//
// The test process stays in the default namespace and reaches every host at its
// address, port 22, logging in as root with client_key(), checking host keys against
// known_hosts(). Paths are the same in every namespace: host i's own files live below
// host(i).root, files every host shares below shared_dir().
//
// A set-up failure (not root, no `ip`, no sshd, ...) FAILs the running Catch2 test with
// the script's output; it is never skipped. Owns the hosts; not copyable; one thread.
#ifndef TEST_UTIL_TEST_HOSTS_H_
#define TEST_UTIL_TEST_HOSTS_H_

#include <string>
#include <vector>

#include "nutchfs/sftp_env.h"

// Test binaries get PROJECT_SOURCE_DIR from CMake; the default below is taken where a
// TestHosts is constructed, i.e. in the test's own translation unit.
#ifdef PROJECT_SOURCE_DIR
#define TESTUTIL_TESTHOSTS_SCRIPT PROJECT_SOURCE_DIR "/scripts/testhosts.sh"
#else
#define TESTUTIL_TESTHOSTS_SCRIPT ""
#endif

namespace testutil {

struct TestHost {
  std::string name;  // "h0", "h1", ...
  std::string address;
  int port = 22;
  std::string netns;
  std::string root;      // this host's own directory
  std::string host_key;  // its private host key
};

class TestHosts {
 public:
  explicit TestHosts(int n, std::string script = TESTUTIL_TESTHOSTS_SCRIPT);
  ~TestHosts();
  TestHosts(const TestHosts&) = delete;
  TestHosts& operator=(const TestHosts&) = delete;

  int size() const { return static_cast<int>(hosts_.size()); }
  const TestHost& host(int i) const { return hosts_.at(static_cast<size_t>(i)); }
  const std::string& dir() const { return dir_; }
  const std::string& client_key() const { return client_key_; }
  const std::string& known_hosts() const { return known_hosts_; }
  const std::string& shared_dir() const { return shared_dir_; }

  // Options to log in to host i as root with the client key.
  nutchfs::SftpOptions SftpOptionsFor(int i) const;

  struct ExecResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr
  };
  // Runs cmd with /bin/sh "on" host i: in its network namespace and file-system view.
  ExecResult Exec(int i, const std::string& cmd) const;

  // Kills host i's sshd and its open sessions (SIGKILL), then starts it again.
  void StopSshd(int i);
  void StartSshd(int i);

  // Runs the script with the given (already quoted) arguments; FAILs the test if it
  // exits non-zero. Returns its output.
  std::string Script(const std::string& args) const;

 private:
  // Reads dir_/hosts.env; false if it is incomplete.
  bool LoadHostsEnv();

  const std::string script_;
  std::string dir_;
  std::string client_key_;
  std::string known_hosts_;
  std::string shared_dir_;
  std::vector<TestHost> hosts_;
};

// Quotes s for /bin/sh.
std::string ShellQuote(const std::string& s);

}  // namespace testutil

#endif  // TEST_UTIL_TEST_HOSTS_H_
