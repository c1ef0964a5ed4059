// The crawl commands through the `webdb` binary (tools/crawl_commands.cc): what update
// applies (nothing) on a truncated or corrupt WARC and what --skip-bad counts, and the
// leases that keep two generates from handing out one URL twice, on a single-machine and
// a distributed db.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <sstream>

#include "nutchfs/lock_owner.h"
#include "test/util/db_dump.h"
#include "test/util/dist_cluster.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"
#include "webdb/db/reader.h"

namespace tools {
namespace {

const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";
const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";

testutil::ProcessResult Webdb(std::vector<std::string> args, const std::string& prefix) {
  args.insert(args.begin(), kWebdb);
  return testutil::RunProcess(args, {}, prefix);
}

testutil::ProcessResult MustRun(std::vector<std::string> args, const std::string& prefix) {
  auto r = Webdb(args, prefix);
  INFO(args[0] << ": " << r.Describe());
  REQUIRE(r.exit_code == 0);
  return r;
}

testutil::DbDump DumpSingle(const std::string& db) {
  auto env = nutchfs::NewLocalEnv();
  auto reader = webdb::Reader::Open(*env, db);
  REQUIRE(reader);
  auto dump = testutil::DumpDb(**reader);
  REQUIRE(dump);
  return *dump;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

uint64_t Field(const std::string& json, const std::string& name) {
  size_t at = json.find("\"" + name + "\":");
  REQUIRE(at != std::string::npos);
  return std::stoull(json.substr(at + name.size() + 3));
}

TEST_CASE("update: a truncated or corrupt WARC, or a digest mismatch, applies nothing, --skip-bad counts", "[cli]") {
  testutil::TempDir dir;
  std::string db = dir.File("db");
  MustRun({"create", db}, dir.File("create"));
  testutil::WriteFile(dir.File("seeds"), "http://a.example/\n");
  MustRun({"inject", "-q", db, dir.File("seeds")}, dir.File("inject"));
  testutil::DbDump before = DumpSingle(db);
  std::string good = testutil::HtmlResponseRecord("http://a.example/", "<a href=/x>x</a>");
  std::string bad = testutil::WarcRecordText("response", "http://a.example/b", "NOT HTTP");
  struct Bad {
    const char* name;
    std::string data;
    std::string message;  // after "FILE: "
  };
  std::string whole = good + good;
  std::vector<Bad> cases = {
      {"truncated.warc", whole.substr(0, whole.size() - 10), "record at offset " +
                                                                 std::to_string(good.size())},
      {"truncated.warc.gz", testutil::Gzip(good) + testutil::Gzip(good).substr(0, 30),
       "truncated"},
      {"corrupt.warc", good + bad, "record at offset " + std::to_string(good.size()) +
                                       ": bad HTTP status line 'NOT HTTP'"},
      {"digest.warc",
       good + testutil::WithWarcHeader(testutil::HtmlResponseRecord("http://a.example/c", "c"),
                                       "WARC-Payload-Digest", testutil::Sha1Digest("tampered")),
       "record at offset " + std::to_string(good.size()) + ": WARC-Payload-Digest sha1:"},
  };
  for (const Bad& c : cases) {
    INFO(c.name);
    testutil::WriteFile(dir.File(c.name), c.data);
    auto r = Webdb({"update", "-q", db, dir.File(c.name)}, dir.File(c.name));
    CHECK(r.exit_code == 3);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("webdb: " + dir.File(c.name) + ": ", 0) == 0);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(testutil::CompareDumps(before, DumpSingle(db)).empty());
  }
  // --skip-bad: the good records are applied, each bad one (a truncated tail: one) counted;
  // the second good record is about the same url as the first, which decides.
  auto r = MustRun({"update", "-q", "--skip-bad", db, dir.File("corrupt.warc"),
                    dir.File("truncated.warc"), dir.File("digest.warc")},
                   dir.File("skip"));
  CHECK(Field(r.out, "bad") == 3);
  CHECK(Field(r.out, "html") == 1);
  testutil::DbDump after = DumpSingle(db);
  CHECK(after.num_pages == 2);  // a.example/ fetched, its link's target /x
  CHECK(after.num_links == 1);
}

// Generates --top 4 at a fixed time until the fetch list is empty: every due page once.
void CheckLeases(const std::vector<std::string>& db_args, const std::string& prefix,
                 const std::set<std::string>& seeds) {
  const std::string now = "1800000000000";
  auto generate = [&](const std::string& at, bool dry_run) {
    std::vector<std::string> args = {"generate", "-q"};
    args.insert(args.end(), db_args.begin(), db_args.end());
    args.insert(args.end(), {"--top", "4", "--now", at});
    if (dry_run) args.push_back("--dry-run");
    return Lines(MustRun(args, prefix + "gen").out);
  };
  CHECK(generate(now, true) == generate(now, true));  // a dry run leases nothing
  std::set<std::string> handed_out;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> list = generate(now, false);
    CHECK(list.size() == (round < 2 ? 4u : 2u));
    for (const std::string& url : list) {
      INFO(url);
      CHECK(seeds.count(url) == 1);
      CHECK(handed_out.insert(url).second);  // disjoint from every list before
    }
  }
  CHECK(handed_out == seeds);
  CHECK(generate(now, false).empty());
  // --lease-days 7 (the default): due again once the lease has ended.
  std::string later = std::to_string(1800000000000LL + 7 * 86400000LL);
  CHECK(generate(later, true).size() == 4);
}

TEST_CASE("generate: two runs hand out disjoint fetch lists, on one db and on k", "[cli]") {
  testutil::TempDir dir;
  std::set<std::string> seeds;
  std::string text;
  for (const char* host : {"a", "b", "c"}) {
    for (int i = 0; i < (host[0] == 'c' ? 4 : 3); ++i) {
      seeds.insert(std::string("http://") + host + ".example/" + std::to_string(i));
    }
  }
  for (const std::string& url : seeds) text += url + "\n";
  testutil::WriteFile(dir.File("seeds"), text);
  REQUIRE(seeds.size() == 10);

  std::string db = dir.File("db");
  MustRun({"create", db}, dir.File("create"));
  MustRun({"inject", "-q", db, dir.File("seeds")}, dir.File("inject"));
  CheckLeases({db}, dir.File("single-"), seeds);

  testutil::DistCluster cluster(kDistwriter, 2);
  cluster.Create();
  MustRun({"inject", "-q", "--config", cluster.config(), dir.File("seeds")},
          dir.File("inject-dist"));
  CheckLeases({"--config", cluster.config()}, dir.File("dist-"), seeds);
  CHECK(testutil::CompareDumps(DumpSingle(db), cluster.Dump()).empty());
}

TEST_CASE("generate: no fetch list unless its pages are leased", "[cli]") {
  testutil::TempDir dir;
  std::string db = dir.File("db");
  MustRun({"create", db}, dir.File("create"));
  testutil::WriteFile(dir.File("seeds"), "http://a.example/\n");
  MustRun({"inject", "-q", db, dir.File("seeds")}, dir.File("inject"));
  // Another writer (on another host) holds the db: the lease session cannot open.
  nutchfs::LockOwner other = nutchfs::CurrentProcess("webdb writer");
  other.host = "elsewhere.example";
  auto env = nutchfs::NewLocalEnv();
  REQUIRE(env->CreateExclusive(db + "/LOCK", nutchfs::EncodeLockOwner(other)).ok());
  auto busy = Webdb({"generate", "-q", db, "--top", "5", "--out", dir.File("list")},
                    dir.File("busy"));
  CHECK(busy.exit_code == 4);
  CHECK(busy.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir.File("list")));
  // A dry run needs no session.
  auto dry = MustRun({"generate", "-q", db, "--top", "5", "--dry-run"}, dir.File("dry"));
  CHECK(dry.out == "http://a.example/\n");
  REQUIRE(env->RemoveFile(db + "/LOCK").ok());
  MustRun({"generate", "-q", db, "--top", "5", "--out", dir.File("list")}, dir.File("gen"));
  CHECK(testutil::ReadFileOrEmpty(dir.File("list")) == "http://a.example/\n");
}

}  // namespace
}  // namespace tools

namespace tools {
namespace {

// The openat/creat/rename calls of argv and of every process it starts, traced by strace
// into prefix.strace: fails the test if strace cannot run.
testutil::ProcessResult Traced(std::vector<std::string> argv, const std::string& prefix,
                               std::string* trace) {
  argv.insert(argv.begin(), {"/usr/bin/strace", "-f", "-qq", "-e",
                             "trace=openat,creat,rename,renameat,renameat2", "-o",
                             prefix + ".strace"});
  auto r = testutil::RunProcess(argv, {}, prefix);
  *trace = testutil::ReadFileOrEmpty(prefix + ".strace");
  INFO("strace: " << r.Describe());
  REQUIRE(trace->find("openat(") != std::string::npos);  // strace runs, and traces
  return r;
}

// Issue 37: with --config, inject and update wrote their calls to a scratch calls.jsonl,
// sliced it into copies, and started the distwriter beside the webdb binary.
TEST_CASE("inject and update --config stream their calls to distwriter named by the config or "
          "PATH",
          "[cli]") {
  testutil::TempDir dir;
  // webdb alone in a directory: no distwriter beside it.
  std::filesystem::create_directory(dir.File("apart"));
  const std::string webdb = dir.File("apart/webdb");
  std::filesystem::copy_file(kWebdb, webdb);
  testutil::WriteFile(dir.File("seeds"), "http://a.example/\nhttp://b.example/\n");
  testutil::WriteFile(dir.File("crawl.warc"),
                      testutil::HtmlResponseRecord(
                          "http://a.example/", "<a href=/x>x</a><a href=http://c.example/>c</a>"));
  const std::string db = dir.File("db");
  MustRun({"create", db}, dir.File("create"));
  MustRun({"inject", "-q", db, dir.File("seeds")}, dir.File("inject"));
  MustRun({"update", "-q", db, dir.File("crawl.warc")}, dir.File("update"));

  testutil::DistCluster cluster(kDistwriter, 3);
  cluster.Create();
  std::string trace;
  for (const auto& [name, input] : {std::pair{"inject", "seeds"}, {"update", "crawl.warc"}}) {
    INFO(name);
    auto r = Traced({webdb, name, "-q", "--config", cluster.config(), dir.File(input)},
                    dir.File(std::string(name) + "-dist"), &trace);
    INFO(r.Describe());
    CHECK(r.exit_code == 0);
    // No call file before the stream: the spill files are the writers' pieces.
    CHECK(trace.find("calls.jsonl") == std::string::npos);
    CHECK(trace.find("/inputs/launch-") != std::string::npos);
  }
  CHECK(testutil::CompareDumps(DumpSingle(db), cluster.Dump()).empty());

  // Without a path in the config: the distwriter found through PATH, or a clear failure.
  cluster.SetGlobal("distwriter", "distwriter");
  const std::vector<std::string> inject = {webdb, "inject", "-q", "--config", cluster.config(),
                                           dir.File("seeds")};
  auto found = testutil::RunProcess(inject, {"PATH=" PROJECT_BINARY_DIR "/tools:/usr/bin:/bin"},
                                    dir.File("on-path"));
  INFO(found.Describe());
  CHECK(found.exit_code == 0);
  auto missing = testutil::RunProcess(inject, {"PATH=/usr/bin:/bin"}, dir.File("not-on-path"));
  INFO(missing.Describe());
  CHECK(missing.exit_code == 4);  // an environment failure (docs/CLI.md)
  CHECK_THAT(missing.err, Catch::Contains("writer 0 (machine ") &&
                              Catch::Contains("start distwriter: No such file or directory"));
  CHECK(testutil::CompareDumps(DumpSingle(db), cluster.Dump()).empty());
}

}  // namespace
}  // namespace tools
