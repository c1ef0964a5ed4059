// config_bench: how the cluster config reader's time grows with the config's size.
//
//   config_bench [--machines=1000] [--steps=4] [--runs=3]
//
// Parses configs of N, 4N, 16N, ... machines (--steps sizes, each growing 4-fold), each
// machine with its [machine.*] section, a share group [group.*] of its own and a
// [writer.*] section (an entry the distributed writer reads), as `distwriter
// init-local` writes them plus the groups: the shape of a large cluster's config. Best
// of --runs per size. A reader linear in the config's size spends the same time per
// machine at every size; one quadratic in it (what issue 36 found: 3.3 s for 16,000
// writers) four times as much at each step. It prints one line per size and the ratio
// of the time per machine at the largest size to that at the smallest:
//
//   machines 1000: 0.004 s, 4.1 us a machine
//   ...
//   per-machine time ratio, 64000 / 1000 machines: 1.3
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/measure.h"
#include "nutchfs/cluster_config.h"

namespace {

struct Flags {
  int machines = 1000;
  int steps = 4;
  int runs = 3;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--machines=", 0) == 0) {
      f.machines = std::stoi(arg.substr(11));
    } else if (arg.rfind("--steps=", 0) == 0) {
      f.steps = std::stoi(arg.substr(8));
    } else if (arg.rfind("--runs=", 0) == 0) {
      f.runs = std::stoi(arg.substr(7));
    } else {
      std::fprintf(stderr, "usage: %s [--machines=N] [--steps=N] [--runs=N]\n", argv[0]);
      std::exit(2);
    }
  }
  return f;
}

std::string ConfigText(int machines) {
  std::string text = "db = webdb\nwriters = " + std::to_string(machines) + "\n";
  for (int i = 0; i < machines; ++i) {
    const std::string n = std::to_string(i);
    text += "\n[machine.m" + n + "]\nlocation = /data/m" + n + "\n[group.g" + n +
            "]\nmachines = m" + n + "\n[writer." + n + "]\nmachine = m" + n + "\n";
  }
  return text;
}

// Seconds to parse text, best of runs.
double ParseSeconds(const std::string& text, int runs) {
  double best = 1e30;
  for (int r = 0; r < runs; ++r) {
    const double start = bench::NowSeconds();
    auto config = nutchfs::ClusterConfig::Parse(text, "bench.conf");
    const double took = bench::NowSeconds() - start;
    if (!config) {
      std::fprintf(stderr, "config_bench: %s\n", config.error().ToString().c_str());
      std::exit(1);
    }
    best = std::min(best, took);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  double first = 0, last = 0;
  int machines = f.machines;
  for (int step = 0; step < f.steps; ++step, machines *= 4) {
    const double seconds = ParseSeconds(ConfigText(machines), f.runs);
    const double per_machine = seconds / machines;
    if (step == 0) first = per_machine;
    last = per_machine;
    std::printf("machines %d: %.3f s, %.1f us a machine\n", machines, seconds, per_machine * 1e6);
    std::fflush(stdout);
  }
  std::printf("per-machine time ratio, %d / %d machines: %.1f\n", machines / 4, f.machines,
              last / first);
  return 0;
}
