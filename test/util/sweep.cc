#include "test/util/sweep.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "test/util/crash_recovery.h"
#include "test/util/subprocess.h"

namespace testutil {
namespace {

namespace fs = std::filesystem;

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  const uint64_t n = std::strtoull(value, &end, 10);
  INFO(name << "=" << value);
  REQUIRE(*end == '\0');
  return n;
}

// Relative paths of the regular files below dir.
std::vector<std::string> FilesOf(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), dir).string();
    // Reader pins (webdb/db/versions.h) belong to whoever was reading, not to the db.
    if (!rel.starts_with("readers/")) files.push_back(std::move(rel));
  }
  return files;
}

bool SameBytes(const std::string& a, const std::string& b) {
  std::ifstream x(a, std::ios::binary), y(b, std::ios::binary);
  std::string bx(1 << 20, '\0'), by(1 << 20, '\0');
  while (x && y) {
    x.read(bx.data(), static_cast<std::streamsize>(bx.size()));
    y.read(by.data(), static_cast<std::streamsize>(by.size()));
    if (x.gcount() != y.gcount() || bx.compare(0, x.gcount(), by, 0, y.gcount()) != 0) return false;
  }
  return x.eof() && y.eof();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}


}  // namespace

SweepParams ReadSweepParams(const std::string& default_generator) {
  SweepParams p;
  p.pages = EnvNumber("SWEEP_PAGES", p.pages);
  p.kills = static_cast<int>(EnvNumber("SWEEP_KILLS", p.kills));
  p.pair_kills = static_cast<int>(EnvNumber("SWEEP_PAIR_KILLS", p.kills));
  p.launch_kills = static_cast<int>(EnvNumber("SWEEP_LAUNCH_KILLS", p.kills));
  p.seed = EnvNumber("SWEEP_SEED", p.seed);
  p.replicas = static_cast<int>(EnvNumber("SWEEP_REPLICAS", p.replicas));
  const char* gen = std::getenv("SWEEP_GEN");
  p.generator = gen != nullptr ? gen : default_generator;
  INFO("the workload generator " << p.generator
                                 << " is missing: configure with -DWEBDB_BUILD_BENCH=ON "
                                    "(scripts/crash-sweep.sh does)");
  REQUIRE(fs::exists(p.generator));
  return p;
}

void GenerateLoad(const SweepParams& params, const std::string& path) {
  // Through a shell, so that the calls (2 GB for 1M pages) go to the file, not to memory.
  const std::string command = "'" + params.generator + "' --pages " +
                              std::to_string(params.pages) + " --rounds 1 --emit-phase 0 > '" +
                              path + "'";
  ProcessResult r = RunProcess({"/bin/sh", "-c", command}, {}, path + ".gen");
  INFO(r.Describe());
  REQUIRE(r.exit_code == 0);
}

std::vector<std::string> SplitCallFile(const std::string& path, int k, const std::string& prefix) {
  uint64_t lines = 0;
  {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) ++lines;
  }
  std::ifstream in(path);
  std::vector<std::string> paths;
  std::string line;
  for (int i = 0; i < k; ++i) {
    paths.push_back(prefix + "-" + std::to_string(i) + ".jsonl");
    std::ofstream out(paths.back(), std::ios::binary | std::ios::trunc);
    const uint64_t end = lines * static_cast<uint64_t>(i + 1) / static_cast<uint64_t>(k);
    for (uint64_t n = lines * static_cast<uint64_t>(i) / static_cast<uint64_t>(k); n < end; ++n) {
      REQUIRE(std::getline(in, line));
      out << line << '\n';
    }
    out.close();
    REQUIRE(out.good());
  }
  return paths;
}

std::string CompareTrees(const std::string& expected, const std::string& actual,
                         const std::function<bool(const std::string&)>& select, int* extra) {
  std::vector<std::string> wanted = FilesOf(expected);
  for (const std::string& rel : wanted) {
    if (!select(rel)) continue;
    if (!fs::exists(actual + "/" + rel)) return rel + " is missing";
    const std::string a = expected + "/" + rel, b = actual + "/" + rel;
    if (!SameBytes(a, b) && !SameDbFile(rel, ReadAll(a), ReadAll(b))) return rel + " differs";
  }
  for (const std::string& rel : FilesOf(actual)) {
    if (select(rel) && !fs::exists(expected + "/" + rel)) ++*extra;
  }
  return "";
}

void ReportKill(int n, const std::string& what, const std::string& outcome) {
  std::fprintf(stderr, "sweep: kill %d: %s: %s\n", n, what.c_str(), outcome.c_str());
  std::fflush(stderr);
}

}  // namespace testutil
