// `webdb versions`, `rollback`, `keep` and `--version` as a user or script runs them:
// listings, reads of kept versions, exit codes, rollback killed (SIGKILL) as each of its
// steps begins, and rollback refused while a writer runs.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "nutchfs/env.h"
#include "test/util/corrupt.h"
#include "test/util/layer_tables.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"

namespace {

using testutil::ProcessResult;

// The crash tests' build, with kill points (tools/step_observer.h).
const std::string kWebdb = PROJECT_BINARY_DIR "/test/killable/webdb";

class Cli {
 public:
  Cli() : db_(tmp_.File("db")) {}
  const std::string& db() const { return db_; }
  std::string File(const std::string& name) const { return tmp_.File(name); }

  ProcessResult Run(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
    args.insert(args.begin(), kWebdb);
    return testutil::RunProcess(args, env, tmp_.File("run" + std::to_string(n_++)));
  }
  std::string MustRun(std::vector<std::string> args) {
    ProcessResult r = Run(std::move(args));
    INFO(r.Describe());
    REQUIRE(r.exit_code == 0);
    return r.out;
  }
  // Applies one session adding the page http://pN/.
  void AddPage(int n) {
    const std::string calls = File("calls" + std::to_string(n));
    std::FILE* f = std::fopen(calls.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fprintf(f, "{\"op\":\"addPage\",\"page\":{\"url\":\"http://p%d/\"}}\n", n);
    std::fclose(f);
    MustRun({"apply", "-q", db_, calls});
  }
  std::string Urls(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"dump", db_, "--table", "pagesByURL"};
    args.insert(args.end(), extra.begin(), extra.end());
    return MustRun(args);
  }
  std::string Current() { return testutil::ReadFileOrEmpty(db_ + "/CURRENT"); }

 private:
  testutil::TempDir tmp_;
  std::string db_;
  int n_ = 0;
};

TEST_CASE("versions lists the kept versions, read commands take --version") {
  Cli cli;
  cli.MustRun({"create", cli.db(), "--keep", "3"});
  for (int n = 1; n <= 3; ++n) cli.AddPage(n);
  const std::string text = cli.MustRun({"versions", cli.db()});
  CHECK(text.starts_with("keep 3\n"));
  CHECK_THAT(text, Catch::Contains("current"));
  const std::string json = cli.MustRun({"versions", cli.db(), "--json"});
  CHECK(json.starts_with("{\"keep\":3,\"versions\":[{\"version\":4,"));
  CHECK_THAT(json, Catch::Contains("{\"version\":2,"));
  CHECK(json.find("{\"version\":1,") == std::string::npos);
  CHECK(cli.Urls({"--version", "2"}).find("http://p2/") == std::string::npos);
  CHECK_THAT(cli.Urls({"--version", "2"}), Catch::Contains("http://p1/"));
  CHECK(cli.Run({"page", cli.db(), "http://p3/", "--version", "3"}).exit_code == 1);
  CHECK(cli.Run({"page", cli.db(), "http://p2/", "--version", "3"}).exit_code == 0);
  CHECK(cli.MustRun({"stats", cli.db(), "--version", "2", "--quick"}).starts_with("{\"pages\":1,"));
  CHECK(cli.Run({"verify", cli.db(), "-q", "--version", "3"}).exit_code == 0);
  ProcessResult gone = cli.Run({"dump", cli.db(), "--table", "pagesByURL", "--version", "1"});
  CHECK(gone.exit_code == 4);
  CHECK_THAT(gone.err, Catch::Contains("version 1 of " + cli.db() + " is not kept"));
  CHECK(cli.Run({"generate", cli.db(), "--top", "5", "--version", "2"}).exit_code == 2);
  CHECK(cli.Run({"generate", cli.db(), "--top", "5", "--version", "2", "--dry-run", "--now", "1"})
            .out == "http://p1/\n");
  CHECK(cli.Run({"dump", cli.db(), "--table", "pagesByURL", "--version", "0"}).exit_code == 2);
}

TEST_CASE("keep and apply --keep change how many versions are kept") {
  Cli cli;
  cli.MustRun({"create", cli.db()});
  for (int n = 1; n <= 3; ++n) cli.AddPage(n);
  CHECK(cli.Run({"dump", cli.db(), "--table", "pagesByURL", "--version", "3"}).exit_code == 0);
  cli.MustRun({"keep", cli.db(), "1"});
  CHECK(cli.MustRun({"versions", cli.db(), "--json"}).starts_with("{\"keep\":1,\"versions\":[{\"version\":5,"));
  CHECK(cli.Run({"dump", cli.db(), "--table", "pagesByURL", "--version", "4"}).exit_code == 4);
  CHECK(cli.Run({"keep", cli.db(), "0"}).exit_code == 2);
  CHECK(cli.Run({"create", cli.File("other"), "--keep", "0"}).exit_code == 2);
}

TEST_CASE("rollback makes a kept version current as a new version") {
  Cli cli;
  cli.MustRun({"create", cli.db(), "--keep", "3"});
  for (int n = 1; n <= 3; ++n) cli.AddPage(n);
  const std::string at2 = cli.Urls({"--version", "2"});
  cli.MustRun({"rollback", cli.db(), "2"});
  CHECK(cli.Current() == "MANIFEST-000005\n");
  CHECK(cli.Urls() == at2);
  CHECK_THAT(cli.MustRun({"versions", cli.db(), "--json"}), Catch::Contains("\"rollbackTo\":2"));
  CHECK(cli.Run({"rollback", cli.db(), "1"}).exit_code == 4);  // not kept
  CHECK(cli.Run({"rollback", cli.db(), "x"}).exit_code == 2);
  CHECK(cli.Run({"verify", cli.db(), "-q"}).exit_code == 0);
}

TEST_CASE("rollback to a kept version whose table is damaged is refused with exit 3") {
  Cli cli;
  cli.MustRun({"create", cli.db(), "--keep", "3"});
  for (int n = 1; n <= 3; ++n) cli.AddPage(n);
  const std::string path = cli.db() + "/pagesByURL-000002.tbl";
  testutil::FlipByte(path, std::filesystem::file_size(path) / 4);
  ProcessResult r = cli.Run({"rollback", cli.db(), "2"});
  INFO(r.Describe());
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.err, Catch::Contains(path));
  CHECK(cli.Current() == "MANIFEST-000004\n");
  CHECK(cli.Run({"stats", cli.db()}).exit_code == 0);
}

TEST_CASE("a damaged kept manifest: every command still works, verify names it, "
          "drop-version drops it") {
  Cli cli;
  cli.MustRun({"create", cli.db(), "--keep", "3"});
  for (int n = 1; n <= 3; ++n) cli.AddPage(n);
  const std::string manifest = cli.db() + "/MANIFEST-000003";
  testutil::FlipByte(manifest, std::filesystem::file_size(manifest) / 2);
  cli.MustRun({"stats", cli.db(), "--quick"});
  cli.MustRun({"stats", cli.db()});
  CHECK_THAT(cli.MustRun({"versions", cli.db()}), Catch::Contains("damaged"));
  CHECK_THAT(cli.MustRun({"versions", cli.db(), "--json"}),
             Catch::Contains("{\"version\":3,\"damaged\":\""));
  cli.MustRun({"explain", cli.db(), "http://p1/"});
  ProcessResult verify = cli.Run({"verify", cli.db()});
  CHECK(verify.exit_code == 3);
  CHECK_THAT(verify.out, Catch::Contains(manifest) && Catch::Contains("drop-version"));
  cli.MustRun({"keep", cli.db(), "5"});  // version 5
  cli.AddPage(4);                          // version 6
  cli.MustRun({"rollback", cli.db(), "4"});  // version 7
  CHECK(cli.Run({"rollback", cli.db(), "3"}).exit_code == 3);
  CHECK(cli.Run({"drop-version", cli.db(), "7"}).exit_code == 3);  // the current one
  CHECK(cli.Run({"drop-version", cli.db(), "1"}).exit_code == 4);  // not kept
  CHECK(cli.Run({"drop-version", cli.db()}).exit_code == 2);
  cli.MustRun({"drop-version", cli.db(), "3"});
  CHECK_FALSE(std::filesystem::exists(manifest));
  ProcessResult clean = cli.Run({"verify", cli.db()});
  INFO(clean.Describe());
  CHECK(clean.exit_code == 0);
  CHECK_THAT(clean.err, Catch::Contains("verified version 7 and the tables of kept versions 6, "
                                        "5 and 4"));
}

TEST_CASE("rollback killed as each step begins leaves the old or the new version", "[fault]") {
  for (const char* step : {"rollback", "publish", "current", "collect"}) {
    CAPTURE(step);
    Cli cli;
    cli.MustRun({"create", cli.db(), "--keep", "3"});
    for (int n = 1; n <= 3; ++n) cli.AddPage(n);
    const std::string at2 = cli.Urls({"--version", "2"}), at4 = cli.Urls();
    ProcessResult killed =
        cli.Run({"rollback", cli.db(), "2"}, {std::string("WEBDB_KILL_AT=") + step});
    INFO(killed.Describe());
    REQUIRE(killed.KilledBy(SIGKILL));
    const std::string now = cli.Urls();
    if (std::string(step) == "collect") {
      CHECK(cli.Current() == "MANIFEST-000005\n");
      CHECK(now == at2);
    } else {
      CHECK(cli.Current() == "MANIFEST-000004\n");
      CHECK(now == at4);
    }
    // The lock of the killed process is broken by the rerun, which finishes the job.
    cli.MustRun({"rollback", cli.db(), "2"});
    CHECK(cli.Current() == "MANIFEST-000005\n");
    CHECK(cli.Urls() == at2);
    CHECK(cli.Run({"verify", cli.db(), "-q"}).exit_code == 0);
    cli.AddPage(9);
    CHECK(cli.Current() == "MANIFEST-000006\n");
  }
}

TEST_CASE("rollback is refused while a writer runs", "[fault]") {
  Cli cli;
  cli.MustRun({"create", cli.db()});
  cli.AddPage(1);
  // The apply reads its calls from a FIFO, so it holds the db until they are written.
  const std::string fifo = cli.File("calls.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto apply = testutil::Subprocess::Start({kWebdb, "apply", "-q", cli.db(), fifo}, {},
                                           cli.File("apply"));
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(cli.db() + "/LOCK")) {
    REQUIRE(std::chrono::steady_clock::now() < end);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ProcessResult refused = cli.Run({"rollback", cli.db(), "1"});
  CHECK(refused.exit_code == 4);
  CHECK_THAT(refused.err, Catch::Contains(cli.db() + "/LOCK"));
  CHECK_THAT(refused.err, Catch::Contains("held by live"));
  const int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const std::string call = "{\"op\":\"addPage\",\"page\":{\"url\":\"http://p2/\"}}\n";
  REQUIRE(::write(fd, call.data(), call.size()) == static_cast<ssize_t>(call.size()));
  ::close(fd);
  ProcessResult r = apply->Wait();
  INFO(r.Describe());
  REQUIRE(r.exit_code == 0);
  CHECK(cli.Current() == "MANIFEST-000003\n");
}

// docs/CLI.md, "compact"; the runs are made by test/util/layer_tables.h.
TEST_CASE("compact merges the runs into the bases, and stats shows runs and read amplification",
          "[layered]") {
  Cli cli;
  cli.MustRun({"create", cli.db()});
  for (int n = 1; n <= 4; ++n) cli.AddPage(n);
  const std::string urls = cli.Urls();
  auto env = nutchfs::NewLocalEnv();
  REQUIRE(testutil::LayerCurrentVersion(*env, cli.db(), 5, 3).ok());
  CHECK(cli.Urls() == urls);
  const std::string layered = cli.MustRun({"stats", "--quick", cli.db()});
  CHECK(std::regex_search(layered, std::regex("\"runs\":[1-9],\"lookupLayers\":[2-9],")));

  ProcessResult r = cli.Run({"compact", cli.db()});
  INFO(r.Describe());
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("compacted") != std::string::npos);
  CHECK(cli.Urls() == urls);
  const std::string stats = cli.MustRun({"stats", "--quick", cli.db()});
  CHECK(stats.find("\"pagesByURL\":{\"records\":4,") != std::string::npos);
  for (const char* table : {"pagesByURL", "pagesByMD5", "linksByMD5", "linksByURL"}) {
    CAPTURE(table);
    const size_t at = stats.find(std::string("\"") + table + "\":");
    REQUIRE(at != std::string::npos);
    CHECK(stats.find("\"runs\":0,\"lookupLayers\":1,\"scanAmplification\":1.000", at) ==
          stats.find("\"runs\"", at));
  }
  cli.MustRun({"verify", cli.db()});  // exit 0: no finding

  r = cli.Run({"compact", cli.db()});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("nothing to do") != std::string::npos);
}

TEST_CASE("stats: --json is the default, --quick reads no table, versions kept are counted") {
  Cli cli;
  cli.MustRun({"create", cli.db(), "--keep", "3"});
  for (int n = 1; n <= 2; ++n) cli.AddPage(n);
  const std::string json = cli.MustRun({"stats", cli.db()});
  CHECK(cli.MustRun({"stats", cli.db(), "--json"}) == json);
  CHECK(json.starts_with("{\"pages\":2,\"links\":0,\"tables\":{"));
  CHECK_THAT(json, Catch::Contains("\"version\":3,\"keep\":3,\"versionsKept\":3"));
  CHECK_THAT(cli.MustRun({"stats", cli.db(), "--text"}),
             Catch::Contains("version 3; 3 versions kept (keep 3)"));
  // Without its pagesByURL file, the db cannot be read, but its manifest still says
  // what is in it: --quick opens no table.
  std::filesystem::remove(cli.db() + "/pagesByURL-000003.tbl");
  CHECK(cli.Run({"stats", cli.db()}).exit_code == 4);
  const std::string quick = cli.MustRun({"stats", cli.db(), "--quick"});
  CHECK(quick.starts_with("{\"pages\":2,\"links\":0,\"tables\":{\"pagesByURL\":{\"records\":2,"));
  CHECK_THAT(quick, Catch::Contains("\"versionsKept\":3"));
}

TEST_CASE("explain tells a url's history in the kept versions") {
  Cli cli;
  cli.MustRun({"create", cli.db(), "--keep", "4"});
  cli.AddPage(1);
  const std::string calls = cli.File("delete");
  std::FILE* f = std::fopen(calls.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs("{\"op\":\"deletePage\",\"url\":\"http://p1/\"}\n", f);
  std::fclose(f);
  cli.MustRun({"apply", "-q", cli.db(), calls});
  const std::string json = cli.MustRun({"explain", cli.db(), "http://p1/", "--json"});
  CHECK(json.starts_with("{\"url\":\"http://p1/\",\"page\":null,"));
  CHECK_THAT(json, Catch::Contains("\"history\":{\"versions\":[{\"version\":1,\"rollbackTo\":null,\"page\":null},{\"version\":2,"));
  CHECK_THAT(json, Catch::Contains("\"appeared\":\"in version 2\""));
  CHECK_THAT(json, Catch::Contains("\"removed\":\"deletePage in the session that made version 3\""));
  const std::string text = cli.MustRun({"explain", cli.db(), "http://p1/"});
  CHECK_THAT(text, Catch::Contains("page removed by deletePage in the session that made version 3"));
  const std::string at2 = cli.MustRun({"explain", cli.db(), "http://p1/", "--json", "--version", "2"});
  CHECK(at2.starts_with("{\"url\":\"http://p1/\",\"page\":{"));
  CHECK_THAT(at2, Catch::Contains("\"removed\":\"\""));
}

}  // namespace
