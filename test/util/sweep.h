// Helpers of the crash sweeps at scale (tag [sweep], run by scripts/crash-sweep.sh, never
// by ctest): their parameters from the environment, the bench workload's call files
// (bench/webdb_bench --emit-phase, built with -DWEBDB_BUILD_BENCH=ON), slices of a call
// file, and a streaming byte-for-byte comparison of two directory trees (a 1M-page db is
// too big to dump into memory).
//
// Free functions; they fail the running Catch2 test when a step that must work does not.
#ifndef TEST_UTIL_SWEEP_H_
#define TEST_UTIL_SWEEP_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace testutil {

struct SweepParams {
  uint64_t pages = 20000;   // SWEEP_PAGES: pages of the load session
  int kills = 10;           // SWEEP_KILLS: kills per kind of sweep
  int pair_kills = 10;      // SWEEP_PAIR_KILLS (default SWEEP_KILLS): two writers at once
  int launch_kills = 10;    // SWEEP_LAUNCH_KILLS (default SWEEP_KILLS): the launcher
  uint64_t seed = 1;        // SWEEP_SEED: the kill moments and victims
  int replicas = 1;         // SWEEP_REPLICAS: the distributed sweep's `replicas`
  std::string generator;    // SWEEP_GEN: the webdb_bench binary
};

// Reads the parameters (the generator defaults to default_generator); requires the
// generator to exist.
SweepParams ReadSweepParams(const std::string& default_generator);

// Writes the workload's load (phase 0) of params.pages pages to path.
void GenerateLoad(const SweepParams& params, const std::string& path);

// Cuts a call file into k files of contiguous lines, about equally many each, named
// prefix + "-<i>.jsonl"; returns their paths.
std::vector<std::string> SplitCallFile(const std::string& path, int k, const std::string& prefix);

// Empty when every file below `expected` that `select` accepts (by its path relative to
// the directory) is below `actual` with the same bytes (manifests: the same but for their
// publication time; reader pins are not compared); otherwise the first difference.
// Files below `actual` that `expected` lacks (selected ones) are counted into *extra.
std::string CompareTrees(const std::string& expected, const std::string& actual,
                         const std::function<bool(const std::string&)>& select, int* extra);

// Prints one kill's outcome to stderr at once, "sweep: kill N: WHAT: OUTCOME": a sweep
// runs for hours, and its log then shows the progress and keeps the kills done so far
// if it is stopped.
void ReportKill(int n, const std::string& what, const std::string& outcome);

}  // namespace testutil

#endif  // TEST_UTIL_SWEEP_H_
