// webdb_bench: the single-machine workload of issue 2 through the C++ API.
//
//   webdb_bench [--pages N] [--rounds R] [--memory SIZE] [--dir DIR] [--seed S]
//               [--fraction F] [--emit-json OUTDIR] [--emit-phase P]
//
// Creates a fresh db in DIR, runs the load (N pages, power-law outlinks) and R rounds,
// each phase in a fresh child process, and prints per phase: wall time (calls + Close),
// peak RSS, bytes read and written, db size, and the time `cat` takes to move the same
// number of bytes (read + written) of the db's files, as a ratio; the same for CPU time
// (user + system), which a busy machine distorts less than wall time. With --emit-json it
// instead writes the same calls as call files OUTDIR/load.jsonl, OUTDIR/round-<r>.jsonl
// for `webdb apply` and `distwriter launch`; with --emit-phase P (0 = the load, r = round
// r) it streams that one phase's calls to standard output, for a pipe into
// `webdb apply DB -` (a 10M-page load is ~18 GB of JSON: never stored). --fraction sets
// the share of pages a round touches (default 0.2).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <string>

#include "bench/measure.h"
#include "bench/workload.h"
#include "tools/cli_args.h"
#include "webdb/calls/json_call_writer.h"
#include "webdb/db/writer.h"

namespace {

struct Flags {
  uint64_t pages = 100000;
  int rounds = 3;
  size_t memory = size_t{256} << 20;
  std::string dir = "/tmp/webdb_bench";
  uint64_t seed = 1;
  double fraction = 0.2;
  std::string emit_json;
  int emit_phase = -1;
};

bool ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string name = argv[i], value = argv[i + 1];
    if (name == "--pages") {
      f->pages = std::stoull(value);
    } else if (name == "--rounds") {
      f->rounds = std::stoi(value);
    } else if (name == "--memory") {
      auto m = tools::ParseMemorySize(value);
      if (!m) return false;
      f->memory = *m;
    } else if (name == "--dir") {
      f->dir = value;
    } else if (name == "--seed") {
      f->seed = std::stoull(value);
    } else if (name == "--emit-json") {
      f->emit_json = value;
    } else if (name == "--fraction") {
      f->fraction = std::stod(value);
    } else if (name == "--emit-phase") {
      f->emit_phase = std::stoi(value);
    } else {
      return false;
    }
  }
  return argc % 2 == 1;
}

// Round 0 is the load.
bench::Result<bench::CallCounts> Generate(const bench::Workload& w, int round,
                                          webdb::CallSink& sink) {
  return w.Phase(round, 0, w.PhaseIds(round), sink);
}

bench::PhaseResult RunPhase(const Flags& f, const bench::Workload& w, int round) {
  bench::PhaseResult r;
  auto fail = [&r](const bench::Status& s) {
    std::snprintf(r.error, sizeof(r.error), "%s", s.ToString().c_str());
    return r;
  };
  auto env = nutchfs::NewLocalEnv();
  auto io0 = bench::ReadSelfIo();
  if (!io0) return fail(io0.error());
  const double t0 = bench::NowSeconds();
  const double cpu0 = bench::CpuSeconds();
  webdb::WriterOptions options;
  options.memory_budget = f.memory;
  auto writer = webdb::Writer::Open(*env, f.dir, std::move(options));
  if (!writer) return fail(writer.error());
  auto counts = Generate(w, round, **writer);
  if (!counts) return fail(counts.error());
  const double t1 = bench::NowSeconds();
  if (auto s = (*writer)->Close(); !s.ok()) return fail(s);
  const double t2 = bench::NowSeconds();
  auto io1 = bench::ReadSelfIo();
  if (!io1) return fail(io1.error());
  r.ok = true;
  r.cpu_seconds = bench::CpuSeconds() - cpu0;
  r.calls = counts->total();
  r.calls_seconds = t1 - t0;
  r.close_seconds = t2 - t1;
  r.io.read_bytes = io1->read_bytes - io0->read_bytes;
  r.io.written_bytes = io1->written_bytes - io0->written_bytes;
  return r;
}

// A sink that drops every call: times the generator alone.
class NullSink final : public webdb::CallSink {
 public:
  bench::Status AddPage(const webdb::Page&) override { return {}; }
  bench::Status AddPageWithScore(const webdb::Page&) override { return {}; }
  bench::Status AddPageIfNotPresent(const webdb::Page&) override { return {}; }
  bench::Status AddPageIfNotPresent(const webdb::Page&, const webdb::Link&) override { return {}; }
  bench::Status DeletePage(std::string_view) override { return {}; }
  bench::Status AddLink(const webdb::Link&) override { return {}; }
};

double GeneratorSeconds(const bench::Workload& w, int round) {
  NullSink sink;
  const double t0 = bench::NowSeconds();
  (void)Generate(w, round, sink);  // a NullSink never fails
  return bench::NowSeconds() - t0;
}

int Report(const Flags& f, const bench::Workload& w, int round, const bench::PhaseResult& r) {
  const std::string name = round == 0 ? "load" : "round" + std::to_string(round);
  if (!r.ok) {
    std::fprintf(stderr, "webdb_bench: %s: %s\n", name.c_str(), r.error);
    return 1;
  }
  const uint64_t moved = r.io.read_bytes + r.io.written_bytes;
  auto cat = bench::TimeCat(bench::FilesUnder(f.dir), (moved + 1) / 2, f.dir + ".cat.out");
  if (!cat) {
    std::fprintf(stderr, "webdb_bench: %s\n", cat.error().ToString().c_str());
    return 1;
  }
  // cat moves 2 * cat->bytes (read + write); scale its time to the round's bytes.
  const double cat_seconds = cat->seconds * static_cast<double>(moved) / (2.0 * cat->bytes);
  const double total = r.calls_seconds + r.close_seconds;
  const double cat_cpu = cat->cpu_seconds * static_cast<double>(moved) / (2.0 * cat->bytes);
  std::printf(
      "RESULT {\"phase\":\"%s\",\"pages\":%lu,\"calls\":%lu,\"seconds\":%.3f,"
      "\"calls_seconds\":%.3f,\"close_seconds\":%.3f,\"generator_seconds\":%.3f,"
      "\"peak_rss_mb\":%.1f,\"read_mb\":%.1f,\"written_mb\":%.1f,\"db_mb\":%.1f,"
      "\"cat_seconds\":%.3f,\"ratio_to_cat\":%.2f,\"cpu_seconds\":%.3f,"
      "\"cat_cpu_seconds\":%.3f,\"cpu_ratio_to_cat\":%.2f}\n",
      name.c_str(), f.pages, r.calls, total, r.calls_seconds, r.close_seconds,
      GeneratorSeconds(w, round), r.peak_rss / 1048576.0, r.io.read_bytes / 1048576.0,
      r.io.written_bytes / 1048576.0, bench::BytesUnder(f.dir) / 1048576.0, cat_seconds,
      total / cat_seconds, r.cpu_seconds, cat_cpu, r.cpu_seconds / cat_cpu);
  std::fflush(stdout);
  return 0;
}

int EmitJson(const Flags& f, const bench::Workload& w) {
  std::filesystem::create_directories(f.emit_json);
  for (int round = 0; round <= f.rounds; ++round) {
    const std::string path = f.emit_json + "/" +
                             (round == 0 ? "load" : "round-" + std::to_string(round)) + ".jsonl";
    std::FILE* out = std::fopen(path.c_str(), "w");
    if (out == nullptr) {
      std::perror(path.c_str());
      return 1;
    }
    webdb::JsonCallWriter sink(webdb::JsonCallWriter::ToStream(out, path));
    auto counts = Generate(w, round, sink);
    bench::Status s = counts ? sink.Flush() : counts.error();
    std::fclose(out);
    if (!s.ok()) {
      std::fprintf(stderr, "webdb_bench: %s\n", s.ToString().c_str());
      return 1;
    }
    std::printf("%s: %lu calls, %lu bytes\n", path.c_str(), counts->total(), sink.bytes_written());
  }
  return 0;
}

// The calls of ids [first, last) of a phase, as call file lines.
bench::Result<std::string> PhaseText(const bench::Workload& w, int round, uint64_t first,
                                     uint64_t last) {
  std::string text;
  webdb::JsonCallWriter sink(webdb::JsonCallWriter::ToString(&text));
  auto counts = w.Phase(round, first, last, sink);
  if (!counts) return nutchfs::Err(counts.error());
  NUTCHFS_RETURN_IF_ERROR(sink.Flush());
  return text;
}

// Streams one phase to standard output. Its ids are generated in chunks, a few ahead on
// threads of their own, and written in order: a piped benchmark must not wait for its
// generator (`distwriter launch -` reads the whole stream before its writers start).
int EmitPhase(const bench::Workload& w, int round) {
  constexpr uint64_t kChunkIds = 4096;
  constexpr size_t kAhead = 3;
  const uint64_t ids = w.PhaseIds(round);
  std::deque<std::future<bench::Result<std::string>>> ahead;
  uint64_t next = 0;
  bench::Status s;
  while (s.ok() && (next < ids || !ahead.empty())) {
    while (next < ids && ahead.size() < kAhead) {
      const uint64_t last = std::min(ids, next + kChunkIds);
      ahead.push_back(std::async(std::launch::async, PhaseText, std::cref(w), round, next, last));
      next = last;
    }
    auto text = ahead.front().get();
    ahead.pop_front();
    if (!text) {
      s = text.error();
    } else if (std::fwrite(text->data(), 1, text->size(), stdout) != text->size()) {
      s = bench::Status::IOError("-: write failed");
    }
  }
  if (s.ok() && std::fflush(stdout) != 0) s = bench::Status::IOError("-: write failed");
  if (!s.ok()) {
    std::fprintf(stderr, "webdb_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  if (!ParseFlags(argc, argv, &f)) {
    std::fprintf(stderr,
                 "usage: webdb_bench [--pages N] [--rounds R] [--memory SIZE] [--dir DIR] "
                 "[--seed S] [--fraction F] [--emit-json OUTDIR] [--emit-phase P]\n");
    return 2;
  }
  const bench::Workload w(f.seed, f.pages, f.rounds, f.fraction);
  if (f.emit_phase >= 0) return EmitPhase(w, f.emit_phase);
  if (!f.emit_json.empty()) return EmitJson(f, w);
  std::filesystem::remove_all(f.dir);
  auto env = nutchfs::NewLocalEnv();
  if (auto s = webdb::Writer::Create(*env, f.dir); !s.ok()) {
    std::fprintf(stderr, "webdb_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  for (int round = 0; round <= f.rounds; ++round) {
    const bench::PhaseResult r = bench::RunInChild([&] { return RunPhase(f, w, round); });
    if (Report(f, w, round, r) != 0) return 1;
  }
  return 0;
}
