// The benchmark workload of issue 2 over a CrawlGen: a load session (N pages, each
// added with addPage and its power-law outlinks with addLink from the page's md5),
// then rounds, each touching a fraction f of the live pages (f/4 deleted, 3f/4 re-added
// with a new md5 and 10 new outlinks) and adding f/10 new pages by addPageIfNotPresent;
// f = 0.2 by default (5% deleted, 15% re-added, 2% new).
//
// Which pages a round touches is a pure function of (seed, round, page id), so round r
// can be generated in a fresh process without replaying rounds 1..r-1. The calls go to
// any webdb::CallSink: the real Writer, a JSON call-file writer, or a counting sink.
// A Workload is immutable and thread-safe; the sink is the caller's.
#ifndef BENCH_WORKLOAD_H_
#define BENCH_WORKLOAD_H_

#include <cstdint>

#include "bench/crawl_gen.h"
#include "webdb/db/writer.h"

namespace bench {

using nutchfs::Result;
using nutchfs::Status;

struct CallCounts {
  uint64_t add_page = 0, add_link = 0, delete_page = 0, add_if_not_present = 0;
  uint64_t total() const { return add_page + add_link + delete_page + add_if_not_present; }
};

class Workload {
 public:
  // pages: the size of the initial load; rounds: how many rounds will be run (sizes
  // the id universe that links may point into).
  Workload(uint64_t seed, uint64_t pages, int rounds, double fraction = 0.2);

  // A phase (0: the load, r: round r, 1 <= r <= rounds) makes the calls of its ids
  // [0, PhaseIds(phase)) in turn, id by id; Phase makes those of ids [first, last).
  // So the ranges of a phase can be generated apart, on threads of their own, and their
  // calls concatenated in order.
  uint64_t PhaseIds(int phase) const;
  Result<CallCounts> Phase(int phase, uint64_t first, uint64_t last,
                           webdb::CallSink& sink) const;

  const CrawlGen& gen() const { return gen_; }

 private:
  enum class Action { kNone, kDelete, kReadd };
  // What round r does to page id (kNone if it does not exist or is deleted by then).
  Action ActionIn(int round, uint64_t id) const;
  int CreatedIn(uint64_t id) const;  // 0 = the load
  Status AddFetched(uint64_t id, uint32_t version, int outdegree, webdb::CallSink& sink,
                    CallCounts* counts) const;

  uint64_t pages_;
  uint64_t delete_below_;  // of a page's pick in [0, kPicks): deleted below this
  uint64_t touch_below_;   // re-added below this (and not deleted)
  uint64_t new_per_round_;
  CrawlGen gen_;
};

}  // namespace bench

#endif  // BENCH_WORKLOAD_H_
