// nutchfs_bench: what publishing through NutchFS costs on one host, and how soon a
// waiting machine sees a file.
//
//   nutchfs_bench [--mib=1024] [--runs=2] [--waits=200] [--dir=/var/tmp]
//
// 1. Put of a --mib file from a working file into another local root (temporary name,
//    kernel copy, fdatasync, SHA-256 of the copy read back, rename, directory sync),
//    against `cp` and `cp` followed by `sync FILE`. Best of --runs; MB/s are 10^6 bytes
//    per second.
// 2. WaitFor latency: a waiting thread on machine b; after a random delay of 0-60 ms the
//    file appears by rename, as at the end of a put; time from the rename's return to
//    WaitFor's return, --waits times, with the local Env (inotify fast path) and the
//    memory Env (polling only); and, as the floor on a busy host, how soon a thread
//    notified through a condition variable runs.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nutchfs/mem_env.h"
#include "nutchfs/nutchfs.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  uint64_t mib = 1024;
  int runs = 2;
  int waits = 200;
  std::string dir = "/var/tmp";
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--mib=", 0) == 0) {
      f.mib = std::stoull(arg.substr(6));
    } else if (arg.rfind("--runs=", 0) == 0) {
      f.runs = std::stoi(arg.substr(7));
    } else if (arg.rfind("--waits=", 0) == 0) {
      f.waits = std::stoi(arg.substr(8));
    } else if (arg.rfind("--dir=", 0) == 0) {
      f.dir = arg.substr(6);
    } else {
      std::fprintf(stderr, "usage: %s [--mib=N] [--runs=N] [--waits=N] [--dir=DIR]\n", argv[0]);
      std::exit(2);
    }
  }
  return f;
}

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "nutchfs_bench: %s\n", msg.c_str());
  std::exit(1);
}

void Check(const nutchfs::Status& s) {
  if (!s.ok()) Die(s.ToString());
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// A file of pseudo-random bytes (incompressible, so no layer can cheat).
void MakeInput(nutchfs::Env& env, const std::string& path, uint64_t mib) {
  auto file = env.NewWritableFile(path);
  if (!file) Die(file.error().ToString());
  std::mt19937_64 rng(42);
  std::string chunk(1 << 20, '\0');
  for (uint64_t i = 0; i < mib; ++i) {
    for (size_t j = 0; j < chunk.size(); j += 8) {
      uint64_t v = rng();
      std::copy_n(reinterpret_cast<const char*>(&v), 8, chunk.data() + j);
    }
    Check((*file)->Append(chunk));
  }
  Check((*file)->Sync());
  Check((*file)->Close());
}

// CPU seconds (user + system) of this process, or of its waited-for children.
double CpuSeconds(int who) {
  struct rusage u;
  ::getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct Timing {
  double wall = 1e100;  // best of the runs
  double cpu = 1e100;   // best of the runs
};

// Runs fn `runs` times; CPU is counted for this process (who = RUSAGE_SELF) or for the
// commands it runs (RUSAGE_CHILDREN).
Timing BestOf(int runs, int who, const std::function<void()>& fn) {
  Timing best;
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    const double cpu = CpuSeconds(who);
    fn();
    best.wall = std::min(best.wall, Seconds(start));
    best.cpu = std::min(best.cpu, CpuSeconds(who) - cpu);
  }
  return best;
}

void Shell(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) Die("failed: " + cmd);
}

std::unique_ptr<nutchfs::NutchFs> Open(const std::string& root, const std::string& machine,
                                       nutchfs::Env* env) {
  const std::string text = "db = bench\n[machine.a]\nlocation = " + root +
                           "/a\n[machine.b]\nlocation = " + root + "/b\n[group.gb]\nmachines = b\n";
  auto config = nutchfs::ClusterConfig::Parse(text, root + "/bench.conf");
  if (!config) Die(config.error().ToString());
  nutchfs::NutchFsOptions options;
  options.env = env;
  auto fs = nutchfs::NutchFs::Open(std::move(*config), machine, options);
  if (!fs) Die(fs.error().ToString());
  return std::move(*fs);
}

void BenchPut(const Flags& f, const std::string& root) {
  auto fs = Open(root, "a", nullptr);
  const std::string input = root + "/input";
  Check(fs->local_env().CreateDirs(root));
  MakeInput(fs->local_env(), input, f.mib);
  const double mb = static_cast<double>(f.mib << 20) / 1e6;
  const std::string out = root + "/b/cp-copy";
  Check(fs->local_env().CreateDirs(root + "/b"));
  Timing cp =
      BestOf(f.runs, RUSAGE_CHILDREN, [&] { Shell("cp " + input + " " + out + " && rm " + out); });
  Timing cp_sync = BestOf(f.runs, RUSAGE_CHILDREN, [&] {
    Shell("cp " + input + " " + out + " && sync " + out + " && rm " + out);
  });
  int n = 0;
  Timing put = BestOf(f.runs, RUSAGE_SELF, [&] {
    auto info = fs->Put(input, nutchfs::NutchFile{"bench", "gb", "f" + std::to_string(n++)});
    if (!info) Die(info.error().ToString());
  });
  std::printf("put %llu MiB (wall s, MB/s, CPU s):\n", static_cast<unsigned long long>(f.mib));
  for (const auto& [name, t] : {std::pair<const char*, Timing>{"NutchFs::Put", put},
                                {"cp", cp},
                                {"cp + sync FILE", cp_sync}}) {
    std::printf("  %-15s %6.2f s %6.0f MB/s  cpu %5.2f s\n", name, t.wall, mb / t.wall, t.cpu);
  }
  std::printf("  Put / (cp + sync): wall %.2f, cpu %.2f\n", put.wall / cp_sync.wall,
              put.cpu / cp_sync.cpu);
  Shell("rm -rf " + root + "/b " + input);
}

// Machine a makes a file appear in b's directory the way a put's last step does (a
// rename from a hidden temporary name); the latency is from the rename's return to
// b's WaitFor's return.
void BenchWait(const Flags& f, const std::string& root, nutchfs::Env* env, const char* label) {
  auto b = Open(root, "b", env);
  nutchfs::Env& fs_env = b->local_env();
  const std::string dir = root + "/b/bench/gb/w";
  Check(fs_env.CreateDirs(dir));
  std::mt19937 rng(7);
  std::vector<double> ms;
  for (int i = 0; i < f.waits; ++i) {
    const nutchfs::NutchFile file{"bench", "gb", "w/" + std::to_string(i)};
    Check(nutchfs::WriteFileAtomically(fs_env, dir + "/.tmp.x", "x"));
    nutchfs::Status waited;
    Clock::time_point woke;
    std::thread waiter([&] {
      waited = b->WaitFor(file, "machine a", std::chrono::seconds(30));
      woke = Clock::now();
    });
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 60000));
    Check(fs_env.RenameFile(dir + "/.tmp.x", dir + "/" + std::to_string(i)));
    const auto renamed = Clock::now();
    waiter.join();
    Check(waited);
    ms.push_back(std::max(0.0, std::chrono::duration<double, std::milli>(woke - renamed).count()));
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[static_cast<size_t>(p * (ms.size() - 1))]; };
  std::printf("WaitFor latency, %s, %d waits: median %.2f ms, p90 %.2f ms, max %.2f ms\n", label,
              f.waits, pct(0.5), pct(0.9), ms.back());
}

// The floor under any WaitFor latency on a loaded host: how long a thread blocked on a
// condition variable takes to run after being notified.
void BenchWakeup(const Flags& f) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<double> ms;
  std::mt19937 rng(7);
  for (int i = 0; i < f.waits; ++i) {
    bool ready = false;
    Clock::time_point notified, woke;
    std::thread waiter([&] {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return ready; });
      woke = Clock::now();
    });
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 60000));
    {
      std::lock_guard<std::mutex> lock(mu);
      ready = true;
      notified = Clock::now();
    }
    cv.notify_one();
    waiter.join();
    ms.push_back(std::chrono::duration<double, std::milli>(woke - notified).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "baseline, condition variable wake-up, %d waits: median %.2f ms, p90 %.2f ms, "
      "max %.2f ms\n",
      f.waits, ms[ms.size() / 2], ms[ms.size() * 9 / 10], ms.back());
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  const std::string root = f.dir + "/nutchfs-bench-" + std::to_string(::getpid());
  BenchPut(f, root);
  BenchWait(f, root, nullptr, "local env (inotify + polling)");
  auto mem = nutchfs::NewMemEnv();
  BenchWait(f, "/mem", mem.get(), "memory env (polling only)");
  BenchWakeup(f);
  Shell("rm -rf " + root);
  return 0;
}
