// nutchfs_bench: what publishing through NutchFS costs on one host, and how soon a
// waiting machine sees a file.
//
//   nutchfs_bench [--mib=1024] [--runs=2] [--waits=200] [--dir=/var/tmp]
//
// 1. Put of a --mib file from a working file into another local root (temp name, SHA-256
//    while copying, fdatasync, size check, rename, directory sync), against `cp` and
//    `cp` followed by `sync FILE`. Best of --runs; MB/s are 10^6 bytes per second.
// 2. WaitFor latency: a waiting thread on machine b, a Put on machine a after a short
//    random delay; time from Put's return to WaitFor's return, --waits times, with the
//    local Env (inotify fast path) and the memory Env (polling only).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
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

double BestOf(int runs, const std::function<void()>& fn) {
  double best = 1e100;
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    fn();
    best = std::min(best, Seconds(start));
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
  double cp = BestOf(f.runs, [&] { Shell("cp " + input + " " + out + " && rm " + out); });
  double cp_sync = BestOf(
      f.runs, [&] { Shell("cp " + input + " " + out + " && sync " + out + " && rm " + out); });
  int n = 0;
  double put = BestOf(f.runs, [&] {
    auto info = fs->Put(input, nutchfs::NutchFile{"bench", "gb", "f" + std::to_string(n++)});
    if (!info) Die(info.error().ToString());
  });
  std::printf(
      "put %llu MiB: NutchFs::Put %.2f s (%.0f MB/s); cp %.2f s (%.0f MB/s); "
      "cp+sync %.2f s (%.0f MB/s); Put/cp+sync = %.2f\n",
      static_cast<unsigned long long>(f.mib), put, mb / put, cp, mb / cp, cp_sync, mb / cp_sync,
      put / cp_sync);
  Shell("rm -rf " + root + "/b " + input);
}

void BenchWait(const Flags& f, const std::string& root, nutchfs::Env* env, const char* label) {
  auto a = Open(root, "a", env);
  auto b = Open(root, "b", env);
  const std::string work = root + "/work";
  Check(a->local_env().CreateDirs(root));
  Check(nutchfs::WriteFileAtomically(a->local_env(), work, "x"));
  std::mt19937 rng(7);
  std::vector<double> ms;
  for (int i = 0; i < f.waits; ++i) {
    const nutchfs::NutchFile file{"bench", "gb", "w/" + std::to_string(i)};
    nutchfs::Status waited;
    Clock::time_point woke;
    std::thread waiter([&] {
      waited = b->WaitFor(file, "machine a", std::chrono::seconds(30));
      woke = Clock::now();
    });
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 60000));
    if (!a->Put(work, file)) Die("put failed");
    const auto put_done = Clock::now();
    waiter.join();
    Check(waited);
    ms.push_back(std::max(0.0, std::chrono::duration<double, std::milli>(woke - put_done).count()));
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[static_cast<size_t>(p * (ms.size() - 1))]; };
  std::printf("WaitFor latency, %s, %d waits: median %.2f ms, p90 %.2f ms, max %.2f ms\n", label,
              f.waits, pct(0.5), pct(0.9), ms.back());
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  const std::string root = f.dir + "/nutchfs-bench-" + std::to_string(::getpid());
  BenchPut(f, root);
  BenchWait(f, root, nullptr, "local env (inotify + polling)");
  auto mem = nutchfs::NewMemEnv();
  BenchWait(f, "/mem", mem.get(), "memory env (polling only)");
  Shell("rm -rf " + root);
  return 0;
}
