// Subprocess: one child process of a test that runs the real command-line tools
// (`webdb`, `distwriter`): started with posix_spawn, extra environment variables,
// standard input from /dev/null and standard output and error captured in files, then
// waited for (with a deadline, so a hung child fails the test instead of hanging it) or
// killed. Helpers fail the running Catch2 test when the OS refuses (spawn, wait).
//
// A Subprocess owns its child: destroying one whose child still runs kills (SIGKILL) and
// reaps it. Not copyable; one thread.
#ifndef TEST_UTIL_SUBPROCESS_H_
#define TEST_UTIL_SUBPROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace testutil {

struct ProcessResult {
  int exit_code = -1;  // -1 when ended by a signal
  int signal = 0;      // the signal that ended it; 0 when it exited
  std::string out;     // all of its standard output
  std::string err;     // all of its standard error

  bool KilledBy(int sig) const { return signal == sig; }
  // "exit 4: <stderr>" or "signal 9: <stderr>", for failure messages.
  std::string Describe() const;
};

class Subprocess {
 public:
  // Starts argv[0] (a path) with arguments argv. env adds or replaces "NAME=value"
  // entries of this process's environment. Output goes to output_prefix + ".out" and
  // ".err" (replaced).
  static std::unique_ptr<Subprocess> Start(const std::vector<std::string>& argv,
                                           const std::vector<std::string>& env,
                                           const std::string& output_prefix);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  // True once the child has ended (reaps it; Wait then returns at once).
  bool Finished();
  // Sends sig to a child that is still running.
  void Kill(int sig);
  // Waits for the child to end, at most `deadline`; past that, kills it and fails the
  // running test. Returns how it ended and what it wrote.
  ProcessResult Wait(std::chrono::milliseconds deadline = std::chrono::seconds(120));

 private:
  Subprocess(pid_t pid, std::string output_prefix)
      : pid_(pid), output_prefix_(std::move(output_prefix)) {}

  pid_t pid_;
  const std::string output_prefix_;
  bool reaped_ = false;
  int wait_status_ = 0;
};

// Starts and waits: Subprocess::Start(...)->Wait().
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                         const std::string& output_prefix);

// The whole content of a file ("" if it cannot be read).
std::string ReadFileOrEmpty(const std::string& path);

}  // namespace testutil

#endif  // TEST_UTIL_SUBPROCESS_H_
