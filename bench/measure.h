// Measuring a benchmark phase: wall time, the bytes a process read and wrote (from
// /proc/self/io: every read(2)/pread(2)/write(2), cached or not), its peak resident
// memory, the bytes of a db directory, and the time `cat` takes to move a given number
// of bytes of that directory's files, which is the yardstick a merge round is held to.
//
// RunInChild runs one phase in a forked child so that its peak RSS and I/O counters are
// its own. Plain functions; none keep state. Not for use from several threads at once
// (RunInChild forks).
#ifndef BENCH_MEASURE_H_
#define BENCH_MEASURE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nutchfs/status.h"

namespace bench {

using nutchfs::Result;
using nutchfs::Status;

struct IoCounters {
  uint64_t read_bytes = 0;     // rchar
  uint64_t written_bytes = 0;  // wchar
};
Result<IoCounters> ReadSelfIo();

// Peak resident set of this process so far (VmHWM), in bytes.
uint64_t PeakRssBytes();

double NowSeconds();  // monotonic
// User + system CPU time of this process so far.
double CpuSeconds();

// Every regular file under dir, recursively, sorted, and their total size.
std::vector<std::string> FilesUnder(const std::string& dir);
uint64_t BytesUnder(const std::string& dir);

struct CatTiming {
  uint64_t bytes = 0;   // bytes cat copied (read once, written once)
  double seconds = 0;
  double cpu_seconds = 0;  // cat's user + system time
};
// Runs /bin/cat over files (repeated as needed) until at least `bytes` have been
// copied into out_path, then deletes out_path.
Result<CatTiming> TimeCat(const std::vector<std::string>& files, uint64_t bytes,
                          const std::string& out_path);

// Wall time is what a phase took on a shared machine; CPU time is what it would take
// alone on an idle core (it does no waiting: the files are in the page cache).
// The numbers a phase reports; trivially copyable, so a child can send it up a pipe.
struct PhaseResult {
  bool ok = false;
  char error[512] = {};
  uint64_t calls = 0;
  double calls_seconds = 0;   // generating and logging the calls
  double close_seconds = 0;   // Writer::Close(): sorts, five stages, publish
  double cpu_seconds = 0;     // user + system time of the whole phase
  IoCounters io;
  uint64_t peak_rss = 0;
};

// Forks; the child runs phase and sends its result back; the parent waits.
PhaseResult RunInChild(const std::function<PhaseResult()>& phase);

}  // namespace bench

#endif  // BENCH_MEASURE_H_
