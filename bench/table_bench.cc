// table_bench: how fast a table file is built, scanned and sought, on its own (no
// stages, no sorting): the ceiling every merge stage works under.
//
//   table_bench [--records=1200000] [--dir=/var/tmp]
//
// Builds a table of --records ~80-byte records (a 43-byte url-like key with long shared
// prefixes and a 40-byte value), scans it front to back three times, then does 20,000
// random seeks. MB/s are 10^6 bytes per second of file.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <unistd.h>

#include "nutchfs/env.h"
#include "webdb/table/table.h"
#include "webdb/table/table_builder.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  size_t records = 1200000;
  std::string dir = "/var/tmp";
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--records=", 0) == 0) {
      f.records = std::stoull(arg.substr(10));
    } else if (arg.rfind("--dir=", 0) == 0) {
      f.dir = arg.substr(6);
    } else {
      std::fprintf(stderr, "usage: %s [--records=N] [--dir=DIR]\n", argv[0]);
      std::exit(2);
    }
  }
  return f;
}

std::string Key(size_t i) {
  char key[64];
  int n =
      std::snprintf(key, sizeof key, "http://www.host%05zu.example.com/page/%08zu", i / 1000, i);
  return std::string(key, n);
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void Check(const webdb::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "table_bench: %s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

void Build(nutchfs::Env& env, const std::string& path, size_t records) {
  const auto start = Clock::now();
  auto builder = webdb::TableBuilder::Create(env, path);
  if (!builder) Check(builder.error(), "create");
  const std::string value(40, 'v');
  for (size_t i = 0; i < records; ++i) Check((*builder)->Add(Key(i), value), "add");
  Check((*builder)->Finish(), "finish");
  const double secs = SecondsSince(start);
  const double mb = (*builder)->file_size() / 1e6;
  std::printf("build: %.1f MB in %.3f s (%.0f MB/s)\n", mb, secs, mb / secs);
}

void Scan(const webdb::Table& table, size_t records, uint64_t file_bytes) {
  const auto start = Clock::now();
  uint64_t n = 0, bytes = 0;
  auto it = table.NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++n;
    bytes += it->key().size() + it->value().size();
  }
  Check(it->status(), "scan");
  if (n != records) Check(webdb::Status::Corruption("scan saw too few records"), "scan");
  const double secs = SecondsSince(start);
  const double mb = file_bytes / 1e6;
  std::printf("scan: %.1f MB in %.3f s: %.0f MB/s of file, %.0f MB/s of keys+values, "
              "%.1f M records/s\n",
              mb, secs, mb / secs, bytes / 1e6 / secs, n / secs / 1e6);
}

void Seek(const webdb::Table& table, size_t records) {
  constexpr int kSeeks = 20000;
  std::mt19937 rng(9);
  auto it = table.NewIterator();
  const auto start = Clock::now();
  for (int i = 0; i < kSeeks; ++i) {
    it->Seek(Key(rng() % records));
    if (!it->Valid()) Check(webdb::Status::Corruption("a seek missed its key"), "seek");
  }
  const double secs = SecondsSince(start);
  std::printf("seek: %d random seeks, %.1f us each\n", kSeeks, secs / kSeeks * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  auto env = nutchfs::NewLocalEnv();
  const std::string path = flags.dir + "/table_bench-" + std::to_string(::getpid()) + ".tbl";
  Build(*env, path, flags.records);
  {
    auto table = webdb::Table::Open(*env, path);
    if (!table) Check(table.error(), "open");
    auto file_bytes = env->GetFileSize(path);
    if (!file_bytes) Check(file_bytes.error(), "size");
    for (int pass = 0; pass < 3; ++pass) Scan(**table, flags.records, *file_bytes);
    Seek(**table, flags.records);
  }
  Check(env->RemoveFile(path), "remove");
  return 0;
}
