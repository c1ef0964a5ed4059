// Runs the built `webdb` binary on temporary dbs, as a user or script would.
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nutchfs/clock.h"
#include "nutchfs/lock_owner.h"
#include "test/util/model.h"
#include "test/util/session.h"
#include "test/util/session_gen.h"
#include "test/util/temp_dir.h"
#include "webdb/calls/json_out.h"
#include "webdb/db/writer.h"

extern char** environ;

namespace webdb {
namespace {

const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadWholeFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void WriteWholeFile(const std::string& path, const std::string& contents) {
  std::ofstream f(path, std::ios::binary);
  f << contents;
  REQUIRE(f.good());
}

// Runs webdb with args, stdin from stdin_path, and collects exit code and output.
RunResult Run(const testutil::TempDir& dir, std::vector<std::string> args,
              const std::string& stdin_path = "/dev/null") {
  std::string out_path = dir.File("stdout"), err_path = dir.File("stderr");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
  const int kCreate = O_WRONLY | O_CREAT | O_TRUNC;
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), kCreate, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), kCreate, 0644);
  std::vector<char*> argv = {const_cast<char*>(kWebdb.c_str())};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, kWebdb.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  RunResult r;
  REQUIRE(WIFEXITED(status));
  r.exit_code = WEXITSTATUS(status);
  r.out = ReadWholeFile(out_path);
  r.err = ReadWholeFile(err_path);
  return r;
}

// Runs and requires success; returns stdout.
std::string MustRun(const testutil::TempDir& dir, std::vector<std::string> args) {
  RunResult r = Run(dir, args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

const char* const kTables[] = {"pagesByURL", "pagesByMD5", "linksByURL", "linksByMD5"};

// The stats' two counts, the keys every stats object starts with (interfaces.md):
// {"pages":N,"links":M}.
std::string CountsOf(const std::string& stats) {
  size_t rest = stats.find(",\"tables\":");
  REQUIRE(rest != std::string::npos);
  return stats.substr(0, rest) + "}\n";
}

// All four dumps and the stats' counts, as one string.
std::string DumpAll(const testutil::TempDir& dir, const std::string& db) {
  std::string all;
  for (const char* t : kTables) all += MustRun(dir, {"dump", db, "--table", t});
  return all + CountsOf(MustRun(dir, {"stats", db}));
}

const std::string kMd5A = "0123456789abcdef0123456789abcdef";
const std::string kMd5B = "fedcba9876543210fedcba9876543210";

// Pages a (content A, 2 outlinks) and b (content B); links A->b, A->a, B->a, B->gone.
const std::string kCalls =
    R"({"op":"addPage","page":{"url":"http://a/","md5":")" + kMd5A +
    R"(","numOutlinks":2,"score":0.1,"nextFetch":1700000000000}})" "\n"
    "\n"
    R"({"op":"addPageWithScore","page":{"url":"http://b/","md5":")" + kMd5B +
    R"(","score":2.5,"retries":3,"fetchInterval":7}})" "\n"
    R"({"op":"addLink","link":{"from":")" + kMd5A +
    R"(","url":"http://b/","anchor":"to b","domainID":9}})" "\n"
    R"({"op":"addLink","link":{"from":")" + kMd5A + R"(","url":"http://a/","anchor":"self"}})" "\n"
    R"({"op":"addLink","link":{"from":")" + kMd5B +
    R"(","url":"http://a/","anchor":"\u00e9\"q\""}})" "\n"
    R"({"op":"addLink","link":{"from":")" + kMd5B + R"(","url":"http://gone/"}})" "\n";

const std::string kPageA =
    R"({"url":"http://a/","md5":")" + kMd5A + R"(","nextFetch":1700000000000,"retries":0,)"
    R"("fetchInterval":30,"numOutlinks":2,"score":0.1,"nextScore":1})" "\n";
const std::string kPageB =
    R"({"url":"http://b/","md5":")" + kMd5B + R"(","nextFetch":0,"retries":3,)"
    R"("fetchInterval":7,"numOutlinks":0,"score":2.5,"nextScore":1})" "\n";
const std::string kLinkAa =
    R"({"from":")" + kMd5A +
    R"(","url":"http://a/","domainID":0,"anchor":"self","targetHasOutlink":true})" "\n";
const std::string kLinkAb =
    R"({"from":")" + kMd5A +
    R"(","url":"http://b/","domainID":9,"anchor":"to b","targetHasOutlink":false})" "\n";
const std::string kLinkBa =
    R"({"from":")" + kMd5B + R"(","url":"http://a/","domainID":0,)" +
    "\"anchor\":\"\xc3\xa9\\\"q\\\"\",\"targetHasOutlink\":true}\n";

TEST_CASE("create, apply, dump and look up") {
  testutil::TempDir dir;
  std::string db = dir.File("db");
  MustRun(dir, {"create", db});
  WriteWholeFile(dir.File("calls.jsonl"), kCalls);
  RunResult apply = Run(dir, {"apply", db, dir.File("calls.jsonl"), "--quiet"});
  INFO(apply.err);
  REQUIRE(apply.exit_code == 0);
  CHECK(apply.out.empty());
  CHECK(apply.err.empty());

  CHECK(MustRun(dir, {"dump", db, "--table", "pagesByURL"}) == kPageA + kPageB);
  CHECK(MustRun(dir, {"dump", db, "--table", "pagesByMD5"}) == kPageA + kPageB);
  CHECK(MustRun(dir, {"dump", db, "--table", "linksByMD5"}) == kLinkAa + kLinkAb + kLinkBa);
  CHECK(MustRun(dir, {"dump", db, "--table", "linksByURL"}) == kLinkAa + kLinkBa + kLinkAb);
  CHECK(CountsOf(MustRun(dir, {"stats", db})) == "{\"pages\":2,\"links\":3}\n");

  CHECK(MustRun(dir, {"page", db, "http://b/"}) == kPageB);
  RunResult absent = Run(dir, {"page", db, "http://gone/"});
  CHECK(absent.exit_code == 1);
  CHECK(absent.out.empty());
  CHECK_THAT(absent.err, Catch::Contains("no page at http://gone/"));

  CHECK(MustRun(dir, {"pages", db, "--md5", kMd5A}) == kPageA);
  CHECK(MustRun(dir, {"pages", db, "--md5", std::string(32, '0')}).empty());
  CHECK(MustRun(dir, {"links", db, "--url", "http://a/"}) == kLinkAa + kLinkBa);
  CHECK(MustRun(dir, {"links", db, "--md5", kMd5A}) == kLinkAa + kLinkAb);
  CHECK(MustRun(dir, {"links", db, "--url", "http://gone/"}).empty());
}

TEST_CASE("apply ends with its calls, its time and the seconds of each step") {
  testutil::TempDir dir;
  std::string db = dir.File("db");
  MustRun(dir, {"create", db});
  WriteWholeFile(dir.File("calls.jsonl"), kCalls);
  RunResult r = Run(dir, {"apply", db, dir.File("calls.jsonl")});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  const std::string seconds = "[0-9]+\\.[0-9]{3}";
  std::string steps = "calls " + seconds;
  for (int stage = 1; stage <= 5; ++stage) {
    steps += ", stage " + std::to_string(stage) + " " + seconds;
  }
  steps += ", publish " + seconds;
  CHECK_THAT(r.err, Catch::Matches("webdb: applied 6 calls in [0-9]+\\.[0-9] s\n"
                                   "webdb: seconds by step: " + steps + "\n"));
}

TEST_CASE("apply reads standard input for -") {
  testutil::TempDir dir;
  std::string db = dir.File("db");
  MustRun(dir, {"create", db});
  WriteWholeFile(dir.File("stdin.jsonl"), kCalls);
  RunResult r = Run(dir, {"apply", "-q", db, "-"}, dir.File("stdin.jsonl"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(MustRun(dir, {"dump", db, "--table", "pagesByURL"}) == kPageA + kPageB);
}

TEST_CASE("bad call files change nothing and name FILE:LINE") {
  testutil::TempDir dir;
  std::string db = dir.File("db");
  MustRun(dir, {"create", db});
  WriteWholeFile(dir.File("calls.jsonl"), kCalls);
  MustRun(dir, {"apply", "-q", db, dir.File("calls.jsonl")});
  std::string before = DumpAll(dir, db);

  // The first file is good and would change the db; the second fails on its line 3.
  WriteWholeFile(dir.File("good.jsonl"), R"({"op":"deletePage","url":"http://a/"})" "\n"
                                         R"({"op":"addPage","page":{"url":"http://new/"}})" "\n");
  WriteWholeFile(dir.File("bad.jsonl"),
                 R"({"op":"addPage","page":{"url":"http://x/"}})" "\n\n"
                 R"({"op":"addPage","page":{"url":"http://y/","retries":256}})" "\n");
  RunResult r = Run(dir, {"apply", db, dir.File("good.jsonl"), dir.File("bad.jsonl")});
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains("webdb: " + dir.File("bad.jsonl") + ":3: page.retries"));
  CHECK(DumpAll(dir, db) == before);

  // The same through standard input, which is named "-".
  RunResult in = Run(dir, {"apply", db, "-"}, dir.File("bad.jsonl"));
  CHECK(in.exit_code == 3);
  CHECK_THAT(in.err, Catch::Contains("webdb: -:3: "));
  CHECK(DumpAll(dir, db) == before);

  // The db is still usable afterwards.
  MustRun(dir, {"apply", "-q", db, dir.File("good.jsonl")});
  CHECK(CountsOf(MustRun(dir, {"stats", db})) == "{\"pages\":2,\"links\":0}\n");
}

TEST_CASE("usage errors exit 2, other failures 3 or 4") {
  testutil::TempDir dir;
  std::string db = dir.File("db");
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {}, {"frob"}, {"dump", db}, {"stats"}, {"links", db},
           {"page", db, "--memory", "1G", "u"}}) {
    RunResult r = Run(dir, args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("webdb: "));
    CHECK(r.out.empty());
  }
  RunResult help = Run(dir, {"--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("webdb apply DB CALLFILE..."));

  CHECK(Run(dir, {"stats", db}).exit_code == 4);  // no db there yet
  MustRun(dir, {"create", db});
  RunResult again = Run(dir, {"create", db});
  CHECK(again.exit_code == 3);
  CHECK_THAT(again.err, Catch::Contains("already exists"));
  CHECK(Run(dir, {"apply", db, dir.File("absent.jsonl")}).exit_code == 4);
}

TEST_CASE("apply: a huge --memory is a ceiling, an impossible one a usage error") {
  testutil::TempDir dir;
  const std::string db = dir.File("db");
  MustRun(dir, {"create", db});
  WriteWholeFile(dir.File("calls.jsonl"), kCalls);
  // Half of this machine's memory: accepted, and nothing like it is allocated.
  const uint64_t physical = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                            static_cast<uint64_t>(::sysconf(_SC_PAGE_SIZE));
  const std::string half = std::to_string(physical / 2 >> 20) + "M";
  RunResult ok = Run(dir, {"apply", db, dir.File("calls.jsonl"), "--memory", half, "-q"});
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  for (const char* size : {"10T", "100000G"}) {
    RunResult r = Run(dir, {"apply", db, dir.File("calls.jsonl"), "--memory", size});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string("--memory ") + size +
                                      ": more than this machine's memory"));
  }
  CHECK_THAT(MustRun(dir, {"stats", db}), Catch::Contains("\"pages\":2"));
}

TEST_CASE("unlock removes the lock of a writer that is gone, never a live one") {
  testutil::TempDir dir;
  const std::string db = dir.File("db");
  MustRun(dir, {"create", db});
  WriteWholeFile(dir.File("calls.jsonl"), kCalls);
  CHECK(Run(dir, {"unlock", db}).exit_code == 1);  // not locked
  // A lock taken on another host (say, through NFS): apply cannot judge it.
  nutchfs::LockOwner other = nutchfs::CurrentProcess("webdb writer");
  other.host = "elsewhere.example";
  auto env = nutchfs::NewLocalEnv();
  REQUIRE(env->CreateExclusive(db + "/LOCK", nutchfs::EncodeLockOwner(other)).ok());
  RunResult busy = Run(dir, {"apply", db, dir.File("calls.jsonl"), "-q"});
  CHECK(busy.exit_code == 4);
  CHECK_THAT(busy.err, Catch::Contains("elsewhere.example") &&
                           Catch::Contains("`webdb unlock " + db + "`") &&
                           !Catch::Contains("--force"));
  RunResult unlocked = Run(dir, {"unlock", db});
  CHECK(unlocked.exit_code == 0);
  CHECK_THAT(unlocked.err, Catch::Contains("removed the lock of " + db));
  MustRun(dir, {"apply", db, dir.File("calls.jsonl"), "-q"});
  // A live local holder (this test process) is never removed.
  REQUIRE(env->CreateExclusive(db + "/LOCK",
                               nutchfs::EncodeLockOwner(nutchfs::CurrentProcess("test")))
              .ok());
  RunResult live = Run(dir, {"unlock", db});
  CHECK(live.exit_code == 4);
  CHECK_THAT(live.err, Catch::Contains("live"));
}

// Issue 36, item 17: a 172 ms old lock of another host was "over the lease" when apply
// met it, and "over the lease of 0 ms" when unlock removed it; a live local holder's
// message pointed to `webdb unlock`, which refuses it.
TEST_CASE("lock messages say what holds the lock and only suggest what works") {
  testutil::TempDir dir;
  const std::string db = dir.File("db");
  MustRun(dir, {"create", db});
  WriteWholeFile(dir.File("calls.jsonl"), kCalls);
  nutchfs::LockOwner other = nutchfs::CurrentProcess("webdb writer");
  other.host = "elsewhere.example";
  other.acquired_ms = nutchfs::NowMs() - 172;
  auto env = nutchfs::NewLocalEnv();
  REQUIRE(env->CreateExclusive(db + "/LOCK", nutchfs::EncodeLockOwner(other)).ok());
  RunResult busy = Run(dir, {"apply", db, dir.File("calls.jsonl"), "-q"});
  CHECK(busy.exit_code == 4);
  CHECK_THAT(busy.err, Catch::Contains("held by pid " + std::to_string(other.pid) +
                                       " on host elsewhere.example") &&
                           Catch::Contains("another host") && !Catch::Contains("lease") &&
                           Catch::Contains("`webdb unlock " + db + "`"));
  RunResult unlocked = Run(dir, {"unlock", db});
  CHECK(unlocked.exit_code == 0);
  CHECK_THAT(unlocked.err, Catch::Contains("removed the lock of " + db) &&
                               Catch::Contains("elsewhere.example") && !Catch::Contains("lease"));
  // A live local holder (this test process): stop it, unlock would refuse.
  REQUIRE(env->CreateExclusive(db + "/LOCK",
                               nutchfs::EncodeLockOwner(nutchfs::CurrentProcess("test")))
              .ok());
  RunResult live = Run(dir, {"apply", db, dir.File("calls.jsonl"), "-q"});
  CHECK(live.exit_code == 4);
  CHECK_THAT(live.err, Catch::Contains("held by live pid " + std::to_string(::getpid())) &&
                           !Catch::Contains("unlock"));
}

TEST_CASE("dumps escape bytes that are not UTF-8") {
  testutil::TempDir dir;
  std::string db = dir.File("db");
  auto env = nutchfs::NewLocalEnv();
  REQUIRE(Writer::Create(*env, db).ok());
  {
    auto writer = Writer::Open(*env, db, {});
    REQUIRE(writer.has_value());
    REQUIRE((*writer)->AddPage(Page::WithDefaults("http://x/\xff\xc3\xa9")).ok());
    REQUIRE((*writer)->Close().ok());
  }
  std::string out = MustRun(dir, {"dump", db, "--table", "pagesByURL"});
  CHECK_THAT(out, Catch::StartsWith("{\"url\":\"http://x/\\u00ff\xc3\xa9\""));
}

std::string ModelTables(const testutil::Model& model) {
  std::string all;
  for (const auto& pages : {model.PagesByUrl(), model.PagesByMd5()}) {
    for (const Page& p : pages) {
      AppendPageJson(p, &all);
      all += '\n';
    }
  }
  for (const auto& links : {model.LinksByUrl(), model.LinksByMd5()}) {
    for (const Link& l : links) {
      AppendLinkJson(l, &all);
      all += '\n';
    }
  }
  return all + "{\"pages\":" + std::to_string(model.pages().size()) +
         ",\"links\":" + std::to_string(model.links().size()) + "}\n";
}

TEST_CASE("stats: one JSON object by default, counts only with --quick, text with --text") {
  testutil::TempDir dir;
  const std::string db = dir.File("db"), calls = dir.File("calls.jsonl");
  WriteWholeFile(calls, kCalls);
  MustRun(dir, {"create", db});
  MustRun(dir, {"apply", "-q", db, calls});
  std::string full = MustRun(dir, {"stats", db});
  CHECK(full.starts_with("{\"pages\":2,\"links\":3,\"tables\":{\"pagesByURL\":{\"records\":2,"));
  CHECK_THAT(full, Catch::Contains("\"topHostsByInlinks\":[{\"host\":\"http://a\",\"inlinks\":2}"));
  CHECK_THAT(full, Catch::Contains("\"retries\":{\"0\":1,\"3\":1}}"));
  std::string quick = MustRun(dir, {"stats", db, "--quick"});
  CHECK(quick.starts_with("{\"pages\":2,\"links\":3,\"tables\":"));
  CHECK(quick.find("duePages") == std::string::npos);
  CHECK(MustRun(dir, {"stats", db, "--text"}).starts_with("pages 2\nlinks 3\n"));
}

TEST_CASE("explain: a report, or one JSON object with --json") {
  testutil::TempDir dir;
  const std::string db = dir.File("db"), calls = dir.File("calls.jsonl");
  WriteWholeFile(calls, kCalls);
  MustRun(dir, {"create", db});
  MustRun(dir, {"apply", "-q", db, calls});
  std::string json = MustRun(dir, {"explain", db, "http://b/", "--json"});
  CHECK(json.starts_with("{\"url\":\"http://b/\",\"page\":" + kPageB.substr(0, kPageB.size() - 1) +
                         ",\"sameMd5\":[],\"outlinks\":[" + kLinkBa.substr(0, kLinkBa.size() - 1) +
                         "],\"inlinks\":[" + kLinkAb.substr(0, kLinkAb.size() - 1) +
                         // a's score 0.1 over its outdeg 1 (its link to itself dropped)
                         "],\"topContributions\":[{\"from\":\"" + kMd5A +
                         "\",\"pages\":1,\"firstUrl\":\"http://a/\",\"share\":0.10000000149011612}]"
                         ",\"due\":true,\"rank\":1,\"duePages\":2,\"history\":{"));
  CHECK(json.ends_with("\"appeared\":\"in version 2\",\"removed\":\"\",\"goneLinks\":[]}}\n"));
  CHECK_THAT(MustRun(dir, {"explain", db, "http://none/"}), Catch::Contains("no page at this url"));
}

TEST_CASE("verify: exit 0 on a sound db, 3 with one line per finding") {
  testutil::TempDir dir;
  const std::string db = dir.File("db"), calls = dir.File("calls.jsonl");
  WriteWholeFile(calls, kCalls);
  MustRun(dir, {"create", db});
  MustRun(dir, {"apply", "-q", db, calls});
  CHECK(MustRun(dir, {"verify", db, "-q"}).empty());
  CHECK(MustRun(dir, {"verify", db, "--json"}).starts_with("{\"clean\":true,"));
  WriteWholeFile(db + "/linksByURL-000099.tbl", "left over");
  RunResult r = Run(dir, {"verify", db});
  CHECK(r.exit_code == 3);
  CHECK(r.out == db + "/linksByURL-000099.tbl: left over: named by no manifest\n");
  r = Run(dir, {"verify", db, "--json"});
  CHECK(r.exit_code == 3);
  CHECK(r.out.starts_with("{\"clean\":false,"));
  CHECK_THAT(r.err, Catch::Contains("left over"));
  CHECK(Run(dir, {"verify", dir.File("none")}).exit_code == 4);
}

TEST_CASE("apply exits 4 naming a damaged table it would share, and publishes nothing") {
  testutil::TempDir dir;
  const std::string db = dir.File("db"), calls = dir.File("calls.jsonl");
  WriteWholeFile(calls, kCalls);
  MustRun(dir, {"create", db});
  MustRun(dir, {"apply", "-q", db, calls});
  const std::string before = DumpAll(dir, db);
  // A page call alone rewrites no link table by md5: linksByMD5-000002 would be shared.
  WriteWholeFile(calls, R"({"op":"deletePage","url":"http://none/"})" "\n");
  const std::string table = db + "/linksByMD5-000002.tbl";
  const std::string bytes = ReadWholeFile(table);
  WriteWholeFile(table, bytes.substr(0, bytes.size() - 1));
  RunResult r = Run(dir, {"apply", "-q", db, calls});
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.err, Catch::Contains(table));
  CHECK(ReadWholeFile(db + "/CURRENT") == "MANIFEST-000002\n");
  WriteWholeFile(table, bytes);
  CHECK(DumpAll(dir, db) == before);
}

TEST_CASE("generated sessions through call files match the model", "[random]") {
  testutil::TempDir dir;
  std::string db = dir.File("db");
  MustRun(dir, {"create", db});
  testutil::GenOptions options;
  options.hostile_bytes = false;  // call files carry UTF-8 only
  options.long_url_chance = 0;
  const uint64_t seed = 4242;
  testutil::SessionGenerator gen(seed, options);
  testutil::Model model;
  for (int s = 0; s < 6; ++s) {
    testutil::Session session = gen.Next();
    std::string lines;
    for (const Call& call : session) {
      AppendCallJson(call, &lines);
      lines += '\n';
    }
    WriteWholeFile(dir.File("session.jsonl"), lines);
    MustRun(dir, {"apply", "-q", "--memory", "1M", db, dir.File("session.jsonl")});
    model.Apply(session);
    INFO("seed " << seed << " session " << s << "\n" << testutil::FormatSession(session));
    REQUIRE(DumpAll(dir, db) == ModelTables(model));
  }
  CHECK(model.pages().size() > 5);  // the sessions built something worth comparing
  CHECK(model.links().size() > 5);
}

}  // namespace
}  // namespace webdb
