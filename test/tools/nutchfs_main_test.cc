// Runs the built `nutchfs` command against a config of local roots, as an operator would,
// and checks outputs and exit codes (0 ok, 1 not found, 2 usage, 3 bad input, 4 I/O).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nutchfs/lock_owner.h"
#include "test/util/temp_dir.h"

extern char** environ;

namespace {

const std::string kNutchfs = PROJECT_BINARY_DIR "/tools/nutchfs";

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadWhole(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void WriteWhole(const std::string& path, const std::string& contents) {
  std::ofstream f(path, std::ios::binary);
  f << contents;
  REQUIRE(f.good());
}

RunResult Run(const testutil::TempDir& dir, std::vector<std::string> args) {
  const std::string out = dir.File("stdout"), err = dir.File("stderr");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv = {const_cast<char*>(kNutchfs.c_str())};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, kNutchfs.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return {WEXITSTATUS(status), ReadWhole(out), ReadWhole(err)};
}

// Machines a and b under dir; group g held by both, group h by b only.
std::string WriteConfig(const testutil::TempDir& dir) {
  const std::string path = dir.File("cluster.conf");
  WriteWhole(path, "db = crawl\nlock_lease_ms = 1000\n[machine.a]\nlocation = " + dir.path() +
                       "/a\n[machine.b]\nlocation = " + dir.path() +
                       "/b\n[group.g]\nmachines = a, b\n[group.h]\nmachines = b\n");
  return path;
}

}  // namespace

TEST_CASE("nutchfs put, ls, get and rm", "[nutchfs]") {
  testutil::TempDir dir;
  const std::string conf = WriteConfig(dir);
  WriteWhole(dir.File("work"), "hello");
  RunResult put =
      Run(dir, {"put", "--config", conf, "--machine", "a", dir.File("work"), "g", "r1/from-0"});
  INFO(put.err);
  REQUIRE(put.exit_code == 0);
  CHECK(put.out ==
        "5 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\n");  // sha256
  CHECK(ReadWhole(dir.path() + "/b/crawl/g/r1/from-0") == "hello");
  RunResult ls = Run(dir, {"ls", "--config", conf, "g"});
  CHECK(ls.exit_code == 0);
  CHECK(ls.out == "r1/from-0\n");
  RunResult get = Run(dir, {"get", "--config", conf, "g", "r1/from-0", dir.File("copy")});
  CHECK(get.exit_code == 0);
  CHECK(ReadWhole(dir.File("copy")) == "hello");
  CHECK(Run(dir, {"rm", "--config", conf, "g", "r1/from-0"}).exit_code == 0);
  RunResult again = Run(dir, {"rm", "--config", conf, "g", "r1/from-0"});
  CHECK(again.exit_code == 1);
  CHECK_THAT(again.err, Catch::Contains("crawl/g/r1/from-0"));
  CHECK(Run(dir, {"get", "--config", conf, "g", "nope", dir.File("x")}).exit_code == 1);
  CHECK(Run(dir, {"ls", "--config", conf, "g"}).out.empty());
}

TEST_CASE("nutchfs exit codes for usage, bad input and I/O errors", "[nutchfs]") {
  testutil::TempDir dir;
  const std::string conf = WriteConfig(dir);
  CHECK(Run(dir, {"ls", "g"}).exit_code == 2);                       // no --config
  CHECK(Run(dir, {"frobnicate", "--config", conf}).exit_code == 2);  // unknown command
  CHECK(Run(dir, {"ls", "--config", conf}).exit_code == 2);          // missing operand
  CHECK(Run(dir, {"ls", "--config", conf, "--bogus", "g"}).exit_code == 2);
  CHECK(Run(dir, {"ls", "--config", dir.File("none.conf"), "g"}).exit_code == 3);
  CHECK(Run(dir, {"ls", "--config", conf, "nogroup"}).exit_code == 3);
  CHECK(Run(dir, {"rm", "--config", conf, "g", "../x"}).exit_code == 3);
  CHECK(Run(dir, {"ls", "--config", conf, "--machine", "zz", "g"}).exit_code == 3);
  WriteWhole(dir.File("bad.conf"), "db = crawl\n[machine.a]\nlocation = relative\n");
  RunResult bad = Run(dir, {"ls", "--config", dir.File("bad.conf"), "g"});
  CHECK(bad.exit_code == 3);
  CHECK_THAT(bad.err, Catch::Contains("bad.conf:3: malformed location 'relative'"));
  WriteWhole(dir.File("work"), "x");
  WriteWhole(dir.path() + "/b", "a file where machine b's root directory should be");
  CHECK(Run(dir, {"put", "--config", conf, dir.File("work"), "h", "f"}).exit_code == 4);
}

TEST_CASE("nutchfs --help, and hostile names in every command", "[nutchfs]") {
  testutil::TempDir dir;
  const std::string conf = WriteConfig(dir);
  RunResult help = Run(dir, {"--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::StartsWith("usage: nutchfs"));
  CHECK(help.err.empty());

  WriteWhole(dir.File("work"), "payload");
  REQUIRE(Run(dir, {"put", "--config", conf, dir.File("work"), "g", "ok"}).exit_code == 0);
  const std::vector<std::string> names = {"..", "../escape", "a/../../escape", "/abs", "a//b",
                                          "dir/", ".hidden", "line\nbreak", "tab\tx",
                                          std::string(1024, 'n'), "a/" + std::string(256, 'n')};
  for (const std::string& name : names) {
    INFO("name '" << name << "'");
    for (std::vector<std::string> cmd : std::vector<std::vector<std::string>>{
             {"put", "--config", conf, dir.File("work"), "g", name},
             {"get", "--config", conf, "g", name, dir.File("got")},
             {"rm", "--config", conf, "g", name},
             {"ls", "--config", conf, "g", name},
             {"locks", "--config", conf, "--break", "g", name},
             {"ls", "--config", conf, name},
             {"put", "--config", conf, "--db", name, dir.File("work"), "g", "f"}}) {
      RunResult r = Run(dir, cmd);
      INFO(cmd[0] << ": " << r.err);
      CHECK(r.exit_code == 3);
      CHECK_FALSE(r.err.empty());
    }
  }
  CHECK_FALSE(std::filesystem::exists(dir.File("got")));
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/a/escape"));
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/a/crawl/escape"));
  CHECK(Run(dir, {"ls", "--config", conf, "g"}).out == "ok\n");

  // get never makes the local file's directory.
  RunResult get = Run(dir, {"get", "--config", conf, "g", "ok", dir.File("missing/dir/out")});
  CHECK(get.exit_code == 1);
  CHECK_THAT(get.err, Catch::Contains(dir.File("missing/dir")));
  CHECK_FALSE(std::filesystem::exists(dir.File("missing")));
}

TEST_CASE("nutchfs locks lists and breaks locks", "[nutchfs]") {
  testutil::TempDir dir;
  const std::string conf = WriteConfig(dir);
  nutchfs::LockOwner other = nutchfs::CurrentProcess("b");
  other.host = "elsewhere.example";
  other.acquired_ms -= 5000;  // older than the 1 s lease
  std::filesystem::create_directories(dir.path() + "/a/crawl/g/.locks");
  WriteWhole(dir.path() + "/a/crawl/g/.locks/update", nutchfs::EncodeLockOwner(other));
  RunResult list = Run(dir, {"locks", "--config", conf});
  CHECK(list.exit_code == 0);
  CHECK_THAT(list.out, Catch::StartsWith("g/update\thost=elsewhere.example pid=") &&
                           Catch::Contains("machine=b"));
  RunResult refused = Run(dir, {"locks", "--config", conf, "--break", "g", "update"});
  CHECK(refused.exit_code == 4);
  CHECK_THAT(refused.err, Catch::Contains("--force"));
  RunResult broke = Run(dir, {"locks", "--config", conf, "--break", "--force", "g", "update"});
  CHECK(broke.exit_code == 0);
  CHECK_THAT(broke.out, Catch::Contains("broke g/update"));
  CHECK(Run(dir, {"locks", "--config", conf}).out.empty());
  CHECK(Run(dir, {"locks", "--config", conf, "--break", "g", "update"}).exit_code == 1);
}
