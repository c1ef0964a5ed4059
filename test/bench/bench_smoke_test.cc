// The benchmarks of bench/ and their scripts, each run once at a tiny size: they still
// build, run to the end and print the figures their documentation promises. Nothing is
// timed here (the sizes are far too small for the figures to mean anything); what fails
// is a benchmark that no longer compiles, exits with an error or stops printing a figure
// (docs/PERFORMANCE.md quotes them).
#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"

namespace {

using testutil::ProcessResult;

const std::string kBench = PROJECT_BINARY_DIR "/bench/";
const std::string kScripts = PROJECT_SOURCE_DIR "/bench/";

// Runs argv with the environment env; requires exit 0 and returns standard output.
std::string MustRun(const testutil::TempDir& tmp, const std::vector<std::string>& argv,
                    const std::vector<std::string>& env = {}) {
  const ProcessResult r = testutil::RunProcess(argv, env, tmp.File("run"));
  INFO(argv[0] << ": " << r.Describe() << "\nstdout:\n" << r.out);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// A benchmark script under bash, with the build tree of these tests and work space in tmp.
std::string RunScript(const testutil::TempDir& tmp, const std::string& script,
                      const std::vector<std::string>& args, std::vector<std::string> env = {}) {
  std::vector<std::string> argv = {"/bin/bash", kScripts + script};
  argv.insert(argv.end(), args.begin(), args.end());
  env.push_back("BUILD=" PROJECT_BINARY_DIR);
  env.push_back("WORK=" + tmp.File("work"));
  return MustRun(tmp, argv, env);
}

}  // namespace

TEST_CASE("webdb_bench runs the load and a round and reports both") {
  testutil::TempDir tmp;
  const std::string out = MustRun(
      tmp, {kBench + "webdb_bench", "--pages", "2000", "--rounds", "1", "--dir", tmp.File("db")});
  CHECK_THAT(out, Catch::Contains(R"(RESULT {"phase":"load","pages":2000,)"));
  CHECK_THAT(out, Catch::Contains(R"(RESULT {"phase":"round1","pages":2000,)"));
  CHECK_THAT(out, Catch::Contains(R"("ratio_to_cat":)"));
}

TEST_CASE("table_bench builds, scans and seeks a table") {
  testutil::TempDir tmp;
  const std::string out =
      MustRun(tmp, {kBench + "table_bench", "--records=20000", "--dir=" + tmp.path()});
  CHECK_THAT(out, Catch::Contains("build: "));
  CHECK_THAT(out, Catch::Contains("M records/s"));
  CHECK_THAT(out, Catch::Contains("seek: 20000 random seeks"));
}

TEST_CASE("nutchfs_bench times a put against cp and the latency of WaitFor") {
  testutil::TempDir tmp;
  const std::string out = MustRun(
      tmp, {kBench + "nutchfs_bench", "--mib=4", "--runs=1", "--waits=5", "--dir=" + tmp.path()});
  CHECK_THAT(out, Catch::Contains("Put / (cp + sync): wall "));
  CHECK_THAT(out, Catch::Contains("WaitFor latency, local env (inotify + polling), 5 waits"));
}

TEST_CASE("config_bench parses growing configs and reports the time per machine") {
  testutil::TempDir tmp;
  const std::string out =
      MustRun(tmp, {kBench + "config_bench", "--machines=50", "--steps=2", "--runs=1"});
  CHECK_THAT(out, Catch::Contains("machines 50: "));
  CHECK_THAT(out, Catch::Contains("machines 200: "));
  CHECK_THAT(out, Catch::Contains("per-machine time ratio, 200 / 50 machines: "));
}

// Starts a test host (network namespace and sshd, scripts/testhosts.sh): needs root.
TEST_CASE("sftp_bench puts and gets a file through a test host, checked byte for byte") {
  testutil::TempDir tmp;
  const std::string out = MustRun(tmp, {kBench + "sftp_bench", "--mib=2", "--runs=1"});
  CHECK_THAT(out, Catch::Contains("put median MB/s ratio sftp env (aes128-gcm) / scp"));
  CHECK_THAT(out, Catch::Contains("get median MB/s ratio sftp env (aes128-gcm) / scp"));
}

TEST_CASE("apply_bench.sh prints the phases and the ratios of the issue's targets") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "apply_bench.sh", {"2000", "1"});
  for (const char* phase : {"load ", "sort_load ", "round ", "small ", "sort_round ", "floor "}) {
    CHECK_THAT(out, Catch::Contains(std::string("\n") + phase));
  }
  CHECK_THAT(out, Catch::Contains("load       / sort_load  wall "));
  CHECK_THAT(out, Catch::Contains("round      / sort_round wall "));
  CHECK_THAT(out, Catch::Contains("round      / floor      wall "));
  CHECK_THAT(out, Catch::Contains("small      / floor      wall "));
}

TEST_CASE("layered_bench.sh compares a small round with a big one and runs rounds on runs") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "layered_bench.sh", {"2000", "5"});
  for (const char* phase : {"small ", "small2 ", "big ", "rounds "}) {
    CHECK_THAT(out, Catch::Contains(std::string("\n") + phase));
  }
  CHECK_THAT(out, Catch::Contains("small round / big round: time "));
  CHECK_THAT(out, Catch::Contains("second small round / big round: time "));
  CHECK_THAT(out, Catch::Contains("5 rounds of 1%: written "));
  CHECK_THAT(out, Catch::Contains("dump equal to the compacted (single-rewrite) db: yes"));
}

TEST_CASE("read_bench.sh reads a db with runs and the same db compacted") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "read_bench.sh", {"2000", "200"}, {"RUNS=1"});
  for (const char* phase : {"lookup_runs ", "dump_runs ", "generate_runs ", "lookup_flat ",
                            "dump_flat ", "generate_flat "}) {
    CHECK_THAT(out, Catch::Contains(std::string("\n") + phase));
  }
  // The rounds left runs in every table; compact left none.
  CHECK_THAT(out, Catch::Matches(
                      "[\\s\\S]*layers of runs runs: pagesByURL [1-6] pagesByMD5 [1-6] "
                      "linksByMD5 [1-6] linksByURL [1-6]\n[\\s\\S]*"));
  CHECK_THAT(out, Catch::Contains(
                      "layers of flat runs: pagesByURL 0 pagesByMD5 0 linksByMD5 0 linksByURL 0"));
  CHECK_THAT(out, Catch::Contains("lookup_runs / lookup_flat wall "));
  CHECK_THAT(out, Catch::Contains("dump_runs  / dump_flat  wall "));
  CHECK_THAT(out, Catch::Contains("generate_runs / generate_flat wall "));
}

TEST_CASE("layered_bench.sh --dist times the same rounds on k local writers") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "layered_bench.sh", {"--dist", "2", "2000", "2"});
  for (const char* phase : {"k2_small ", "k2_small2 ", "k2_big "}) {
    CHECK_THAT(out, Catch::Contains(std::string("\n") + phase));
  }
  CHECK_THAT(out, Catch::Contains("k2_small / small: time "));
  CHECK_THAT(out, Catch::Contains("k2_small2 / k2_big: time "));
  CHECK_THAT(out, Catch::Contains("2 rounds of 1%: written "));
}

TEST_CASE("apply_bench.sh --scale reports time per page, peak RSS and write amplification") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "apply_bench.sh", {"--scale", "2000"});
  CHECK_THAT(out, Catch::Contains("pages 2000, --memory 256M, calls piped"));
  CHECK_THAT(out, Catch::Contains("peak MB written MB     WA us/page"));
  CHECK_THAT(out, Catch::Contains("\nload "));
  CHECK_THAT(out, Catch::Contains("\nround "));
}

TEST_CASE("apply_bench.sh --dist compares k local writers with the single writer") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "apply_bench.sh", {"--dist", "2", "2000"});
  CHECK_THAT(out, Catch::Contains("generator alone, load of 2000 pages"));
  CHECK_THAT(out, Catch::Contains("k2_load    / load       wall "));
  CHECK_THAT(out, Catch::Contains("k2_round   / round      wall "));
}

TEST_CASE("rank_bench.sh compares one iteration with the original's and with a round") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "rank_bench.sh", {"2000", "1"});
  for (const char* phase : {"rank1 ", "rank1_iteration ", "round ", "original "}) {
    CHECK_THAT(out, Catch::Contains(std::string("\n") + phase));
  }
  CHECK_THAT(out, Catch::Contains("original   / rank1      wall "));
  CHECK_THAT(out, Catch::Contains("rank1      / round      wall "));
  CHECK_THAT(out, Catch::Contains("rank1_iteration / round      wall "));
}

TEST_CASE("rank_bench.sh --scale reports ten iterations' peak RSS and time per link") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "rank_bench.sh", {"--scale", "2000"});
  CHECK_THAT(out, Catch::Contains("--memory 256M (peak RSS within budget + 64 MiB: 320 MB)"));
  CHECK_THAT(out, Catch::Contains("\nrank10 "));
  CHECK_THAT(out, Catch::Contains("rank10_iteration: "));
  CHECK_THAT(out, Catch::Contains(" us a link"));
}

TEST_CASE("rank_bench.sh --dist ranks on k writers to the same tables as one machine") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "rank_bench.sh", {"--dist", "2", "2000"});
  CHECK_THAT(out, Catch::Contains("the page tables of both are equal"));
  CHECK_THAT(out, Catch::Contains("k2         / single     wall "));
}

TEST_CASE("dist_bench.sh applies the workload with one writer and with k") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "dist_bench.sh", {"2000", "1", "2"});
  CHECK_THAT(out, Catch::Contains(R"(RESULT {"who":"single","phase":"round-1",)"));
  CHECK_THAT(out, Catch::Contains(R"(RESULT {"who":"k=2","phase":"round-1",)"));
  CHECK_THAT(out, Catch::Contains("bytes exchanged per stage: "));
  CHECK_THAT(out, Catch::Contains("k=2 db: "));
}

// k = 3: k^2 files in stage 0 and the commit, k(k-1) in stages 1..5 (the own section
// is not sent).
TEST_CASE("barrier_bench.sh reports per k and stage the waits, work and files exchanged") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "barrier_bench.sh", {"2000", "1", "3"});
  CHECK_THAT(out, Catch::Contains("\nk=1: round wall "));
  CHECK_THAT(out, Catch::Contains("\nk=3: round wall "));
  CHECK_THAT(out, Catch::Contains("stage    mean_s    wait_s  max_wait_s    work_s    files"));
  CHECK_THAT(out, Catch::Contains(R"(RESULT {"k":1,)"));
  const std::string files = R"(,"max_wait":[0-9.e-]+,"files":)";
  for (int s = 0; s <= 6; ++s) {
    CAPTURE(s);
    const int expected = s == 0 || s == 6 ? 9 : 6;
    CHECK(std::regex_search(out, std::regex(R"(RESULT \{"k":3,.*\{"stage":)" + std::to_string(s) +
                                            R"(,"seconds":[0-9.e-]+,"wait":[0-9.e-]+)" + files +
                                            std::to_string(expected) + ",")));
  }
}

// Needs root (simulated hosts, docs/TEST-HOSTS.md): fails, never skips, without it.
TEST_CASE("replica_bench.sh times rounds with R = 1 and R = 2 over SFTP and a shared directory",
          "[ssh]") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "replica_bench.sh", {"2000", "1"});
  for (const char* t : {"sftp", "shared"}) {
    for (const char* r : {"1", "2"}) {
      CHECK_THAT(out, Catch::Contains(std::string(R"(RESULT {"transport":")") + t +
                                      R"(","replicas":)" + r + R"(,"phase":"round-1",)"));
    }
    CHECK_THAT(out, Catch::Contains(std::string(t) + " rounds R=2 / R=1: "));
  }
  CHECK_THAT(out, Catch::Contains("bytes exchanged per stage: "));
}

TEST_CASE("generate_bench.sh times generate against a scan of the pages") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "generate_bench.sh", {"3000", "100"}, {"RUNS=1"});
  CHECK_THAT(out, Catch::Contains("(100 lines out)"));
  CHECK_THAT(out, Catch::Contains("== best of 1, over the scan"));
  CHECK_THAT(out, Catch::Contains("\ntop+lease   cpu "));
}

TEST_CASE("crawl_bench.sh applies a WARC and reports the update's split") {
  testutil::TempDir tmp;
  const std::string warc = tmp.File("small.warc");
  testutil::WriteFile(warc, testutil::HtmlResponseRecord("http://a.example/", "<a href=/b>b</a>") +
                                testutil::HtmlResponseRecord("http://a.example/b", "<a href=/>a</a>") +
                                testutil::HtmlResponseRecord("http://b.example/", "no links"));
  const std::string out = RunScript(tmp, "crawl_bench.sh", {warc}, {"RUNS=1"});
  CHECK_THAT(out, Catch::Contains("run: 3 HTML pages"));
  CHECK_THAT(out, Catch::Contains("\"seconds\""));
}

TEST_CASE("original_bench.sh runs ours and the original side by side on the same call files") {
  testutil::TempDir tmp;
  const std::string out = RunScript(tmp, "original_bench.sh", {"2000", "1"});
  CHECK_THAT(out, Catch::Contains("in both), 1 runs"));
  for (const char* phase : {"load", "round1", "round2", "round3", "small"}) {
    CHECK_THAT(out, Catch::Contains(std::string("\n") + phase + " "));
    CHECK_THAT(out, Catch::Contains(std::string("original_") + phase + " / " + phase));
  }
}
