// ThreadCluster: a distributed WebDB whose k writers run as threads of this process over
// one Env (distwriter::RunOptions::env) — an in-memory, power-loss or fault-injecting
// file system holding every machine's root (/m<i>), the call files and /tmp. For sweeps
// that cut power or fail a call at every point of a round, where starting processes
// per point would be too slow and a real disk cannot lose power on demand.
//
// Layout as DistCluster (dist_cluster.h): writer i's machine root is /m<i>; its group
// /m<i>/<db>/w<i>, its copy of the meta group /m<i>/<db>/meta.
// A plain description of the cluster; every call names the Env to work on. Not
// thread-safe (each round starts and joins its own threads).
#ifndef TEST_UTIL_THREAD_CLUSTER_H_
#define TEST_UTIL_THREAD_CLUSTER_H_

#include <functional>
#include <string>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/round.h"
#include "test/util/db_dump.h"
#include "test/util/session.h"

namespace testutil {

class ThreadCluster {
 public:
  // k writers; extra_config lines are added to the config's global section
  // ("retries = 0", ...). Fails the running test if the config does not parse.
  ThreadCluster(int k, int timeout_ms, const std::string& extra_config = "");

  int k() const { return config_.k; }
  const distwriter::DistConfig& config() const { return config_; }
  // With another timeout_ms (the same cluster otherwise).
  ThreadCluster WithTimeout(int timeout_ms) const;

  // Makes /tmp and the call file directory, durably. REQUIRES: an empty Env.
  static void Prepare(nutchfs::Env& env);
  // distwriter::CreateDistDb on env.
  nutchfs::Status Create(nutchfs::Env& env) const;
  // Writes the slices as durable call files named after `round`; returns their paths.
  static std::vector<std::string> WriteCalls(nutchfs::Env& env, const std::string& round,
                                             const std::vector<Session>& slices);
  // One round: writer i reads call_files[i]; all k start at once, each on its thread.
  // layers and seeks as distwriter::RunOptions's.
  std::vector<nutchfs::Result<distwriter::RoundReport>> Run(
      nutchfs::Env& env, const std::vector<std::string>& call_files,
      size_t memory_budget = 256 << 10, webdb::LayerPolicy layers = webdb::LayerPolicy::kPlan,
      webdb::SeekPolicy seeks = webdb::SeekPolicy::kPlan) const;
  // A rank round (distwriter::RunOptions::rank) of all k writers at once.
  std::vector<nutchfs::Result<distwriter::RoundReport>> Rank(
      nutchfs::Env& env, const webdb::RankOptions& rank, size_t memory_budget = 256 << 10) const;
  // The db through distwriter::OpenDistReader.
  nutchfs::Result<DbDump> Dump(nutchfs::Env& env) const;
  // Machine i's root.
  static std::string Root(int machine);

 private:
  // Writer i's round with the options set(i, options) sets.
  std::vector<nutchfs::Result<distwriter::RoundReport>> RunEach(
      nutchfs::Env& env, size_t memory_budget,
      const std::function<void(int, distwriter::RunOptions&)>& set) const;

  int timeout_ms_;
  std::string extra_config_;
  distwriter::DistConfig config_;
};

}  // namespace testutil

#endif  // TEST_UTIL_THREAD_CLUSTER_H_
