// Real hosts: the distributed writer with one writer process per simulated machine
// (test/util/test_hosts.h, docs/TEST-HOSTS.md). Three hosts, each running its writer in
// its own network namespace and file view, each writer its own machine that reaches its
// own root directly and its peers
//   - over SFTP (machines `root@<addr>:22:<root>`, the client key and known_hosts of the
//     test hosts in the config),
//   - through one directory every host sees (the NFS stand-in: every root a local path
//     under the shared directory; no ssh at all),
//   - over sshfs: each host mounts its peers' roots on the very paths the config names,
//     so the one config says "local path" and every peer path is really a FUSE mount,
// and `distwriter launch` starting the writers over ssh. After every round the
// distributed db (read from this process, which reaches every machine: over SFTP for the
// SFTP config) must equal the single-machine db fed the same calls, and at the end
// `webdb dump --config` must print the same four tables as `webdb dump` of that db.
#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>

#include "distwriter/dist_reader.h"
#include "test/util/call_writer.h"
#include "test/util/dist_cluster.h"
#include "test/util/hosts_config.h"
#include "test/util/model_db.h"
#include "test/util/session_gen.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/test_hosts.h"

namespace distwriter {
namespace {

using testutil::ProcessResult;
using testutil::RunReport;
using testutil::Session;
using testutil::ShellQuote;
using testutil::Subprocess;
using testutil::TestHosts;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";
const std::string kScript = PROJECT_SOURCE_DIR "/scripts/testhosts.sh";
constexpr int kWriters = 3;
constexpr int kRounds = 2;
constexpr auto kDeadline = std::chrono::seconds(60);

using Transport = testutil::HostsTransport;

ProcessResult RunOrFail(const std::vector<std::string>& argv, const std::string& log_prefix) {
  ProcessResult r = testutil::Subprocess::Start(argv, {}, log_prefix)->Wait(kDeadline);
  INFO(argv[0] << " " << argv[1] << ": " << r.Describe());
  REQUIRE(r.exit_code == 0);
  return r;
}

// Random sessions of a modest size with both page and link calls, valid UTF-8 only
// (call files carry nothing else).
std::vector<Session> MakeSessions(uint64_t seed) {
  testutil::GenOptions o;
  o.universe_urls = 60;
  o.max_calls = 200;
  o.hostile_bytes = false;
  testutil::SessionGenerator gen(seed, o);
  std::vector<Session> sessions;
  while (sessions.size() < kRounds) {
    Session s = gen.Next();
    const auto links = std::count_if(s.begin(), s.end(), [](const webdb::Call& c) {
      return c.op == webdb::Call::Op::kAddLink;
    });
    if (links >= 5 && s.size() - static_cast<size_t>(links) >= 5) sessions.push_back(std::move(s));
  }
  return sessions;
}

// The shell command run on host i: for sshfs, first mount every peer's root on the path
// the config names (checked to be a FUSE sshfs mount, so the writer cannot quietly
// reach the peer's disk directly); then writer i. The mounts live in this command's
// mount namespace and are removed by `testhosts.sh down`.
std::string HostCommand(const TestHosts& hosts, Transport t, int i, const std::string& config,
                        const std::string& call_file) {
  std::string cmd;
  for (int j = 0; t == Transport::kSshfs && j < kWriters; ++j) {
    if (j == i) continue;
    const std::string root = ShellQuote(hosts.host(j).root);
    cmd += ShellQuote(kScript) + " sshfs " + ShellQuote(hosts.dir()) + " " + hosts.host(j).name +
           " " + root + " || exit 90\n";
    cmd += "[ \"$(findmnt -n -o FSTYPE --mountpoint " + root + ")\" = fuse.sshfs ] || { echo " +
           ShellQuote(hosts.host(i).name + ": " + hosts.host(j).root + " is no sshfs mount") +
           " >&2; exit 91; }\n";
  }
  return cmd + "exec " + ShellQuote(kDistwriter) + " run --config " + ShellQuote(config) +
         " --writer " + std::to_string(i) + " --quiet " + ShellQuote(call_file) + "\n";
}

// One round: slice i is written into host i's root and writer i runs on host i; all
// k at once. Each must exit 0 with its report.
std::vector<RunReport> RunRoundOnHosts(const TestHosts& hosts, Transport t,
                                       const std::string& config,
                                       const std::vector<Session>& slices, int round,
                                       const testutil::TempDir& logs) {
  std::vector<std::unique_ptr<Subprocess>> writers;
  for (int i = 0; i < kWriters; ++i) {
    const std::string call_file =
        hosts.host(i).root + "/calls-r" + std::to_string(round) + ".jsonl";
    testutil::WriteCallFile(call_file, slices[i]);
    const std::string shell = HostCommand(hosts, t, i, config, call_file);
    writers.push_back(Subprocess::Start(
        {kScript, "exec", hosts.dir(), hosts.host(i).name, "sh", "-c", shell}, {},
        logs.File("r" + std::to_string(round) + "-w" + std::to_string(i))));
  }
  std::vector<ProcessResult> results;
  std::string all;
  for (int i = 0; i < kWriters; ++i) {
    results.push_back(writers[i]->Wait(kDeadline));
    all += hosts.host(i).name + ": " + results.back().Describe() + "\n";
  }
  std::vector<RunReport> reports;
  for (int i = 0; i < kWriters; ++i) {
    INFO("round " << round << ", writers on their hosts:\n" << all);
    REQUIRE(results[i].exit_code == 0);
    reports.push_back(testutil::ParseRunReport(results[i].out));
    CHECK(reports.back().writer == i);
  }
  return reports;
}

// The distributed db after a round equals the single-machine db and the model.
void CheckRound(testutil::ModelDb& single, const std::string& config, const Session& session) {
  auto expected = single.Dump();
  REQUIRE(expected.has_value());
  const testutil::DbDump actual = testutil::DumpDistDb(config);
  INFO("session:\n" << testutil::FormatSession(session, 40));
  REQUIRE(testutil::CompareDumps(*expected, actual) == "");
  REQUIRE(testutil::CompareDumps(single.model().ToDump(), actual) == "");
  REQUIRE(testutil::CheckInvariants(actual) == "");
  CHECK(actual.num_pages > 0);
  CHECK(actual.num_links > 0);
}

// `webdb dump --config` of the distributed db prints what `webdb dump` of the
// single-machine db prints, table by table.
void CheckCliDumps(const std::string& config, const std::string& single_dir,
                   const testutil::TempDir& logs) {
  for (const char* table : {"pagesByURL", "pagesByMD5", "linksByMD5", "linksByURL"}) {
    CAPTURE(table);
    const ProcessResult dist = RunOrFail(
        {kWebdb, "dump", "--config", config, "--table", table}, logs.File(table + std::string("-d")));
    const ProcessResult one = RunOrFail({kWebdb, "dump", single_dir, "--table", table},
                                        logs.File(table + std::string("-s")));
    CHECK(dist.out == one.out);
    if (std::string(table).starts_with("pages")) CHECK_FALSE(one.out.empty());
  }
}

void CheckReports(const std::vector<RunReport>& reports, const std::vector<Session>& slices,
                  int round, const testutil::DbDump& expected) {
  for (int i = 0; i < kWriters; ++i) {
    CAPTURE(i, round);
    CHECK(reports[i].version == static_cast<uint64_t>(round) + 2);
    CHECK_FALSE(reports[i].already_applied);
    CHECK(reports[i].calls == slices[i].size());
    CHECK(reports[i].pages == expected.num_pages);
    CHECK(reports[i].links == expected.num_links);
  }
}

void RunOnHosts(Transport t, uint64_t seed) {
  TestHosts hosts(kWriters);
  testutil::TempDir logs;
  const std::string config = testutil::WriteHostsConfig(hosts, t);
  RunOrFail({kDistwriter, "create", "--config", config}, logs.File("create"));
  const std::vector<Session> sessions = MakeSessions(seed);
  testutil::ModelDb single;
  std::mt19937_64 cuts(seed);
  for (int r = 0; r < kRounds; ++r) {
    CAPTURE(seed, r, sessions[r].size());
    const auto slices = testutil::SplitSession(sessions[r], kWriters, cuts);
    const auto reports = RunRoundOnHosts(hosts, t, config, slices, r, logs);
    REQUIRE(single.Apply(sessions[r]).ok());
    CheckRound(single, config, sessions[r]);
    CheckReports(reports, slices, r, testutil::DumpDistDb(config));
  }
  CheckCliDumps(config, single.dir(), logs);
  // Verified where the sections live (over SFTP, NFS or sshfs): nothing found.
  const ProcessResult verified =
      RunOrFail({kWebdb, "verify", "-q", "--config", config}, logs.File("verify"));
  CHECK(verified.out.empty());
}

TEST_CASE("three writers on three hosts exchange over SFTP", "[ssh]") {
  RunOnHosts(Transport::kSftp, 401);
}

TEST_CASE("three writers on three hosts exchange through a shared directory", "[ssh]") {
  RunOnHosts(Transport::kShared, 402);
}

TEST_CASE("three writers on three hosts exchange over sshfs mounts", "[ssh]") {
  RunOnHosts(Transport::kSshfs, 403);
}

// A launch report row: writer, machine, calls, then the times and bytes.
struct LaunchRow {
  int writer;
  std::string machine;
  uint64_t calls;
};

std::vector<LaunchRow> LaunchRows(const std::string& report) {
  std::vector<LaunchRow> rows;
  const std::regex row(R"((?:^|\n)(\d+) +(\S+) +(\d+) +[0-9.]+)");
  for (std::sregex_iterator it(report.begin(), report.end(), row), end; it != end; ++it) {
    rows.push_back({std::stoi((*it)[1]), (*it)[2], std::stoull((*it)[3])});
  }
  return rows;
}

// `distwriter launch` from this process: it publishes each writer's slice over SFTP and
// starts `distwriter run` on each host with ssh, the client key and known_hosts of the
// config; the report names every writer's machine and the db's new counts.
TEST_CASE("distwriter launch starts each writer on its host over ssh", "[ssh]") {
  TestHosts hosts(kWriters);
  testutil::TempDir logs;
  const std::string config = testutil::WriteHostsConfig(hosts, Transport::kSftp);
  RunOrFail({kDistwriter, "create", "--config", config}, logs.File("create"));
  const std::vector<Session> sessions = MakeSessions(404);
  testutil::ModelDb single;
  for (int r = 0; r < kRounds; ++r) {
    CAPTURE(r, sessions[r].size());
    const std::string calls = logs.File("calls-" + std::to_string(r) + ".jsonl");
    testutil::WriteCallFile(calls, sessions[r]);
    const ProcessResult launch = RunOrFail(
        {kDistwriter, "launch", "--config", config, "--quiet", calls}, logs.File("launch"));
    REQUIRE(single.Apply(sessions[r]).ok());
    CheckRound(single, config, sessions[r]);
    const testutil::DbDump dump = testutil::DumpDistDb(config);

    INFO("launch report:\n" << launch.out);
    const std::vector<LaunchRow> rows = LaunchRows(launch.out);
    REQUIRE(rows.size() == kWriters);
    uint64_t calls_seen = 0;
    for (int i = 0; i < kWriters; ++i) {
      CHECK(rows[i].writer == i);
      CHECK(rows[i].machine == hosts.host(i).name);
      calls_seen += rows[i].calls;
    }
    CHECK(calls_seen == sessions[r].size());
    CHECK(launch.out.find("bytes exchanged per stage:") != std::string::npos);
    const std::string summary = "version " + std::to_string(r + 2) + ": " +
                                std::to_string(dump.num_pages) + " pages, " +
                                std::to_string(dump.num_links) + " links";
    CHECK(launch.out.find(summary) != std::string::npos);
  }
  CheckCliDumps(config, single.dir(), logs);
  // Verified where the sections live (over SFTP, NFS or sshfs): nothing found.
  const ProcessResult verified =
      RunOrFail({kWebdb, "verify", "-q", "--config", config}, logs.File("verify"));
  CHECK(verified.out.empty());
}

}  // namespace
}  // namespace distwriter
