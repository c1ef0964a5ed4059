// DistCluster: a distributed WebDB of k writer processes on this host, for tests that run
// the real `distwriter` binary (PROJECT_BINARY_DIR/tools/distwriter): the config
// made by `distwriter init-local` in a temporary directory, `distwriter create`, writer
// processes started one at a time (for fault tests) or a whole round at once, the JSON
// report line of `distwriter run`, reads through distwriter::OpenDistReader, and
// verification through distwriter::VerifyDistDb.
//
// Layout (docs/DISTRIBUTED.md): writer i's machine root is <dir>/m<i>; its share group is
// <dir>/m<i>/webdb/w<i> and its copy of the meta group <dir>/m<i>/webdb/meta.
//
// Owns the temporary directory (removed on destruction with every file below it).
// Helpers fail the running Catch2 test when a step that must work does not. Not
// thread-safe.
#ifndef TEST_UTIL_DIST_CLUSTER_H_
#define TEST_UTIL_DIST_CLUSTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/round_manifest.h"
#include "test/util/db_dump.h"
#include "test/util/session.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"

namespace testutil {

// The JSON line `distwriter run` prints on success.
struct RunReport {
  int writer = -1;
  uint64_t version = 0;
  bool already_applied = false;
  uint64_t calls = 0;
  uint64_t pages = 0;
  uint64_t links = 0;
};
// Fails the running test when line is not such a report.
RunReport ParseRunReport(const std::string& line);

class DistCluster {
 public:
  // `distwriter init-local --writers k` with the binary at distwriter_binary (test
  // binaries know it as PROJECT_BINARY_DIR "/tools/distwriter"), then timeout_ms
  // set to timeout_ms (the default of ten minutes would let a broken round hang a test)
  // and `distwriter = ` that binary, the one launches (webdb's too) start.
  DistCluster(std::string distwriter_binary, int k, int timeout_ms = 60000);
  DistCluster(const DistCluster&) = delete;
  DistCluster& operator=(const DistCluster&) = delete;

  int k() const { return k_; }
  const std::string& config() const { return config_; }
  // The config loaded (distwriter::DistConfig::Load); fails the test if it does not load.
  distwriter::DistConfig LoadConfig() const;
  const TempDir& dir() const { return tmp_; }
  // Writer i's share group directory and its machine's copy of the meta group.
  std::string GroupDir(int writer) const { return GroupDirAt(writer, writer); }
  // Writer i's share group directory at machine m (a replica's, with replicas > 1).
  std::string GroupDirAt(int writer, int machine) const;
  std::string MetaDir(int writer) const;

  // Rewrites the "timeout_ms = ..." line of the config.
  void SetTimeoutMs(int ms);
  // Sets a key of the config's global section ("retries", "retry_window_ms", ...).
  void SetGlobal(const std::string& key, const std::string& value);
  // `distwriter create`, with --sample of these urls when not empty. Requires success.
  void Create(const std::vector<std::string>& sample_urls = {});

  // Writes slice as a new call file (a fresh name each call) and returns its path.
  std::string WriteCallFile(int writer, const Session& slice);
  // `distwriter run --config C --writer i --quiet [flags] call_file`, with env added.
  std::unique_ptr<Subprocess> StartWriter(int writer, const std::string& call_file,
                                          const std::vector<std::string>& env = {},
                                          const std::vector<std::string>& flags = {});
  // One whole round: slices[i] is writer i's call file; all k writers start at once and
  // are waited for; each must exit 0 with a report (stderr printed otherwise).
  std::vector<RunReport> RunRound(const std::vector<Session>& slices,
                                  const std::vector<std::string>& flags = {});

  // The committed round manifest at writer i's machine.
  distwriter::RoundManifest Committed(int writer = 0) const;
  // The whole db through OpenDistReader; requires that it opens and reads.
  DbDump Dump() const;
  // The findings of distwriter::VerifyDistDb, one a line ("" for a sound db); requires
  // that verification runs.
  std::string VerifyFindings() const;

 private:
  std::string NextPrefix(const std::string& what);

  TempDir tmp_;
  const std::string binary_;
  const int k_;
  std::string config_;
  int counter_ = 0;
};

// The distributed db of a cluster config, read through OpenDistReader; requires that
// it opens and reads.
DbDump DumpDistDb(const std::string& config);
// Checks that the distributed db equals a single-machine db fed the same sessions.
void CheckDistDbMatchesSingle(const std::string& config, const std::vector<Session>& sessions);

}  // namespace testutil

#endif  // TEST_UTIL_DIST_CLUSTER_H_
