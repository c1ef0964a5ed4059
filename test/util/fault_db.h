// FaultDb: a distributed db of k writer processes (DistCluster) beside a single-machine
// db (ModelDb) fed the same sessions, for fault tests of the distributed writer: rounds
// cut from generated sessions into k call files, writers started one by one (with a
// kill point in their environment, say), and checks that the distributed db equals the
// single-machine one after each applied round. Plus helpers to wait for writers and
// files. Fails the running Catch2 test when a step that must work does not. Owns its
// cluster and model; not thread-safe.
#ifndef TEST_UTIL_FAULT_DB_H_
#define TEST_UTIL_FAULT_DB_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "test/util/dist_cluster.h"
#include "test/util/model_db.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"

namespace testutil {

// Sessions of min..max calls, valid UTF-8 only (call files carry nothing else).
GenOptions FaultSessions(size_t min_calls, size_t max_calls);

class FaultDb {
 public:
  struct Round {
    Session session;
    std::vector<Session> slices;
    std::vector<std::string> files;  // writer i's call file
  };

  // The cluster of `distwriter` at binary, created (version 1).
  FaultDb(const std::string& binary, int k, uint64_t seed, int timeout_ms,
          GenOptions gen = FaultSessions(50, 300));

  DistCluster& cluster() { return cluster_; }
  SessionGenerator& gen() { return gen_; }

  Round NextRound() { return Prepare(gen_.Next()); }
  // Cuts session into k random slices, one call file each.
  Round Prepare(Session session);
  std::unique_ptr<Subprocess> Start(int writer, const Round& r, std::vector<std::string> env = {},
                                    std::vector<std::string> flags = {});

  // The round committed: the distributed db equals the single-machine one after it, and
  // every machine has installed the new version.
  void ExpectApplied(const Round& r);
  // The single-machine db takes the session of r, which the distributed db has applied
  // (or decided, and will show once writer 0 has rolled it forward), unchecked.
  void ModelApplies(const Session& session);
  // Like ExpectApplied, but machines whose writers did not run since may still be at the
  // version before: only the db as readers see it is checked.
  void ExpectAppliedForReaders(const Round& r);
  // The distributed db equals the single-machine one, at the same version as before.
  void ExpectUnchanged();
  // Every machine has installed the current version.
  void ExpectEveryMachineCurrent();
  uint64_t version() const { return version_; }

 private:
  DistCluster cluster_;
  ModelDb single_;
  SessionGenerator gen_;
  std::mt19937_64 cuts_;
  uint64_t version_ = 1;
};

ProcessResult ExpectSuccess(Subprocess& p, int writer);
// Every non-null writer must exit 0.
void ExpectAllSucceed(std::vector<std::unique_ptr<Subprocess>>& writers);
// Runs every writer of round r at once; all must succeed and apply it.
void RunAll(FaultDb& db, const FaultDb::Round& r, const std::vector<std::string>& flags = {});

// Polls until path exists (or fails the test after deadline).
void AwaitFile(const std::string& path,
               std::chrono::milliseconds deadline = std::chrono::milliseconds(30000));
// The one directory "rounds/<round>-<token>" in a group (the token is not known ahead).
std::string AwaitRoundDir(const std::string& group_dir, uint64_t round);

}  // namespace testutil

#endif  // TEST_UTIL_FAULT_DB_H_
