#include "bench/measure.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace bench {

Result<IoCounters> ReadSelfIo() {
  std::ifstream in("/proc/self/io");
  if (!in) return nutchfs::Err(Status::IOError("/proc/self/io: cannot open"));
  IoCounters io;
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "rchar:") io.read_bytes = value;
    if (key == "wchar:") io.written_bytes = value;
  }
  return io;
}

uint64_t PeakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      uint64_t kb = 0;
      fields >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {
double Seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec * 1e-6; }
}  // namespace

double CpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
}

std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

uint64_t BytesUnder(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (const std::string& f : FilesUnder(dir)) total += std::filesystem::file_size(f, ec);
  return total;
}

namespace {

// The argument list: files repeated until their sizes add up to at least bytes.
std::vector<std::string> CatArgs(const std::vector<std::string>& files, uint64_t bytes,
                                 uint64_t* total) {
  std::vector<std::string> args = {"cat"};
  std::error_code ec;
  *total = 0;
  while (*total < bytes) {
    const uint64_t before = *total;
    for (const std::string& f : files) {
      if (*total >= bytes) break;
      args.push_back(f);
      *total += std::filesystem::file_size(f, ec);
    }
    if (*total == before) break;  // nothing to copy
  }
  return args;
}

}  // namespace

Result<CatTiming> TimeCat(const std::vector<std::string>& files, uint64_t bytes,
                          const std::string& out_path) {
  CatTiming timing;
  std::vector<std::string> args = CatArgs(files, bytes, &timing.bytes);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const double start = NowSeconds();
  const pid_t pid = ::fork();
  if (pid < 0) return nutchfs::Err(Status::FromErrno("fork", errno));
  if (pid == 0) {
    const int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::dup2(fd, 1) < 0) ::_exit(127);
    ::execv("/bin/cat", argv.data());
    ::_exit(127);
  }
  int wstatus = 0;
  rusage usage{};
  ::wait4(pid, &wstatus, 0, &usage);
  timing.seconds = NowSeconds() - start;
  timing.cpu_seconds = Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
  ::unlink(out_path.c_str());
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return nutchfs::Err(Status::IOError("cat into " + out_path + " failed"));
  }
  return timing;
}

PhaseResult RunInChild(const std::function<PhaseResult()>& phase) {
  PhaseResult result;
  int fds[2];
  if (::pipe(fds) != 0) {
    std::snprintf(result.error, sizeof(result.error), "pipe: %s", std::strerror(errno));
    return result;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    PhaseResult r = phase();
    r.peak_rss = PeakRssBytes();
    ssize_t n = ::write(fds[1], &r, sizeof(r));
    ::_exit(n == static_cast<ssize_t>(sizeof(r)) ? 0 : 1);
  }
  ::close(fds[1]);
  ssize_t got = pid > 0 ? ::read(fds[0], &result, sizeof(result)) : -1;
  ::close(fds[0]);
  if (pid > 0) ::waitpid(pid, nullptr, 0);
  if (got != static_cast<ssize_t>(sizeof(result))) {
    result = PhaseResult{};
    std::snprintf(result.error, sizeof(result.error), "phase process died (pid %d)", pid);
  }
  return result;
}

}  // namespace bench
