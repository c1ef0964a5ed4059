// The Slurm recipes of docs/DISTRIBUTED.md ("Schedulers") against a real Slurm
// (test/util/slurm_cluster.h: munged, slurmctld and slurmd started by the test, one node
// running all three tasks): writers that learn their index from the scheduler, a round
// through `srun -n 3`, then a job array whose task 1 is killed in the middle of the round
// and requeued; each round's db equals the single-machine db fed the same calls.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <thread>

#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"
#include "test/util/slurm_cluster.h"
#include "test/util/test_hosts.h"

namespace distwriter {
namespace {

using testutil::ProcessResult;
using testutil::Session;
using testutil::ShellQuote;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
// The crash tests' build of the same program: it kills itself at WEBDB_KILL_AT.
const std::string kKillable = PROJECT_BINARY_DIR "/test/killable/distwriter";
constexpr int kWriters = 3;

std::vector<Session> MakeSessions(uint64_t seed, size_t n) {
  return testutil::RoundSessions(seed, n, 60, 150, 30);
}

// Writes the round's slices as <calls>/part-<i>.jsonl, the names the recipes use.
std::string WriteParts(testutil::DistCluster& cluster, const std::vector<Session>& slices,
                       int round) {
  const std::string dir = cluster.dir().File("calls-" + std::to_string(round));
  std::filesystem::create_directories(dir);
  for (int i = 0; i < kWriters; ++i) {
    std::filesystem::rename(cluster.WriteCallFile(i, slices[i]),
                            dir + "/part-" + std::to_string(i) + ".jsonl");
  }
  return dir;
}

// JobState of one task of an array job ("" when Slurm no longer knows it).
std::string TaskState(const testutil::SlurmCluster& slurm, const std::string& task) {
  const ProcessResult r = slurm.Shell("scontrol show job " + task, "show");
  std::smatch m;
  return std::regex_search(r.out, m, std::regex("JobState=(\\w+)")) ? m[1].str() : "";
}

// Waits until no task of the job is pending or running.
void AwaitJob(const testutil::SlurmCluster& slurm, const std::string& job) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(4);
  while (true) {
    const ProcessResult q = slurm.Shell("squeue -h -j " + job, "squeue");
    REQUIRE(q.exit_code == 0);
    if (q.out.empty()) return;
    INFO("squeue: " << q.out);
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// Requeues a task that ended, to run at once (a requeued job is otherwise held for two
// minutes).
void Requeue(const testutil::SlurmCluster& slurm, const std::string& task) {
  const ProcessResult r = slurm.Shell(
      "scontrol requeue " + task + " && scontrol update jobid=" + task + " StartTime=now",
      "requeue");
  INFO(r.Describe());
  REQUIRE(r.exit_code == 0);
}

TEST_CASE("Slurm runs a round with srun -n 3, then a job array with a task killed and requeued",
          "[slurm]") {
  testutil::SlurmCluster slurm;
  testutil::DistCluster cluster(kDistwriter, kWriters, 60000);
  cluster.Create();
  const std::vector<Session> sessions = MakeSessions(901, 2);
  std::mt19937_64 cuts(901);

  // Round 1: one step of three tasks, each its own rank's writer.
  const std::string parts1 =
      WriteParts(cluster, testutil::SplitSession(sessions[0], kWriters, cuts), 1);
  const ProcessResult srun = slurm.Shell(
      "srun -n 3 sh -c " + ShellQuote("exec " + kDistwriter + " run --config " +
                                      cluster.config() +
                                      " --quiet --session \"$SLURM_JOB_ID.$SLURM_STEP_ID\" " + parts1 +
                                      "/part-$SLURM_PROCID.jsonl"),
      "srun");
  INFO(srun.Describe() << "\n" << srun.out);
  REQUIRE(srun.exit_code == 0);
  for (int i = 0; i < kWriters; ++i) {
    CHECK_THAT(srun.err, Catch::Contains("writer " + std::to_string(i) + ", from SLURM_PROCID"));
  }
  testutil::CheckDistDbMatchesSingle(cluster.config(), {sessions[0]});

  // Round 2: a job array, task i writer i; task 1's first run kills itself in stage 3.
  const std::string parts2 =
      WriteParts(cluster, testutil::SplitSession(sessions[1], kWriters, cuts), 2);
  const std::string script =
      "if [ \"$SLURM_ARRAY_TASK_ID\" = 1 ] && [ -z \"${SLURM_RESTART_COUNT:-}\" ]; then "
      "export WEBDB_KILL_AT='stage 3'; fi; exec " +
      kKillable + " run --config " + cluster.config() +
      " --quiet --session \"$SLURM_ARRAY_JOB_ID\" " + parts2 +
      "/part-$SLURM_ARRAY_TASK_ID.jsonl";
  const ProcessResult sbatch = slurm.Shell(
      "sbatch --parsable --requeue --array=0-2 -n 1 --open-mode=append -o " +
          ShellQuote(cluster.dir().File("task-%a.out")) + " --wrap " + ShellQuote(script),
      "sbatch");
  INFO(sbatch.Describe());
  REQUIRE(sbatch.exit_code == 0);
  const std::string job = sbatch.out.substr(0, sbatch.out.find_first_of(";\n"));
  // Task 1 dies by its own SIGKILL; its peers wait for it meanwhile.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (TaskState(slurm, job + "_1") != "FAILED") {
    INFO("task 1: " << TaskState(slurm, job + "_1"));
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  Requeue(slurm, job + "_1");
  // A peer may have given up meanwhile on a slow machine (it fails its round with a
  // message): the scheduler's answer is to requeue it too, and the round then completes.
  for (int attempt = 0;; ++attempt) {
    AwaitJob(slurm, job);
    std::vector<int> failed;
    for (int i = 0; i < kWriters; ++i) {
      if (TaskState(slurm, job + "_" + std::to_string(i)) != "COMPLETED") failed.push_back(i);
    }
    if (failed.empty()) break;
    INFO("attempt " << attempt << "; task 0: "
                    << testutil::ReadFileOrEmpty(cluster.dir().File("task-0.out")));
    REQUIRE(attempt < 3);
    for (int i : failed) Requeue(slurm, job + "_" + std::to_string(i));
  }
  const std::string task1 = testutil::ReadFileOrEmpty(cluster.dir().File("task-1.out"));
  INFO("task 1's output:\n" << task1);
  CHECK_THAT(task1, Catch::Contains("writer 1, from SLURM_ARRAY_TASK_ID"));
  CHECK_THAT(task1, Catch::Contains("\"writer\":1,\"version\":3"));
  testutil::CheckDistDbMatchesSingle(cluster.config(), sessions);
}

}  // namespace
}  // namespace distwriter
