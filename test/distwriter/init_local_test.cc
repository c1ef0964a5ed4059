#include "distwriter/init_local.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "distwriter/dist_config.h"
#include "nutchfs/fault_env.h"
#include "test/util/temp_dir.h"

namespace distwriter {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A character device node like /dev/null (1, 3) in dir, so that a regression replaces
// no device the machine needs. Needs root (CAP_MKNOD): fails loudly without.
std::string MakeDevice(const testutil::TempDir& dir) {
  const std::string path = dir.File("null");
  REQUIRE(::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0);
  return path;
}

InitLocalOptions Options(const testutil::TempDir& dir, const std::string& out, bool force) {
  return InitLocalOptions{3, dir.File("roots"), out, "webdb", force};
}

}  // namespace

TEST_CASE("init-local writes a config and refuses to replace anything without force",
          "[distwriter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string conf = dir.File("cluster.conf");
  REQUIRE(InitLocal(*env, Options(dir, conf, false)).ok());
  const std::string made = Read(conf);
  CHECK_THAT(made, Catch::Contains("writers = 3") && Catch::Contains(dir.File("roots") + "/m2"));

  std::ofstream(dir.File("target")) << "precious";
  fs::create_symlink(dir.File("target"), dir.File("link"));
  fs::create_symlink(dir.File("nowhere"), dir.File("dangling"));
  REQUIRE(::mkfifo(dir.File("fifo").c_str(), 0600) == 0);
  const std::pair<std::string, std::string> cases[] = {{conf, "a file"},
                                                        {dir.File("link"), "a symbolic link"},
                                                        {dir.File("dangling"), "a symbolic link"},
                                                        {dir.File("fifo"), "a FIFO"},
                                                        {MakeDevice(dir), "a device"}};
  for (const auto& [path, what] : cases) {
    INFO(path);
    Status s = InitLocal(*env, Options(dir, path, false));
    CHECK(s.IsInvalidArgument());
    CHECK_THAT(s.message(), Catch::Contains(path + " exists (" + what + ")") &&
                                Catch::Contains("--force"));
  }
  CHECK(Read(conf) == made);
  CHECK(Read(dir.File("target")) == "precious");
  CHECK(fs::is_symlink(dir.File("link")));
  CHECK(fs::is_fifo(dir.File("fifo")));
  CHECK(InitLocal(*env, Options(dir, dir.path(), true)).IsInvalidArgument());

  REQUIRE(InitLocal(*env, Options(dir, conf, true)).ok());
  CHECK(Read(conf) == made);
}

// Issue 36, item 15: --force replaced /dev/null, a device node, with a regular file.
TEST_CASE("init-local --force replaces a regular file only", "[distwriter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::ofstream(dir.File("target")) << "precious";
  fs::create_symlink(dir.File("target"), dir.File("link"));
  fs::create_symlink(dir.File("nowhere"), dir.File("dangling"));
  REQUIRE(::mkfifo(dir.File("fifo").c_str(), 0600) == 0);
  const std::string device = MakeDevice(dir);
  const std::pair<std::string, std::string> cases[] = {{dir.File("link"), "a symbolic link"},
                                                        {dir.File("dangling"), "a symbolic link"},
                                                        {dir.File("fifo"), "a FIFO"},
                                                        {device, "a device"}};
  for (const auto& [path, what] : cases) {
    INFO(path);
    Status s = InitLocal(*env, Options(dir, path, true));
    CHECK(s.IsInvalidArgument());
    CHECK_THAT(s.message(), Catch::Contains(path + " is " + what) &&
                                Catch::Contains("--force replaces a regular file only"));
  }
  struct stat st {};
  REQUIRE(::stat(device.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(st.st_rdev == ::makedev(1, 3));
  CHECK(fs::is_symlink(dir.File("link")));
  CHECK(Read(dir.File("target")) == "precious");
  CHECK(fs::is_symlink(dir.File("dangling")));
  CHECK(fs::is_fifo(dir.File("fifo")));
}

// Issue 36, item 16: init-local wrote configs that every command refuses.
TEST_CASE("init-local refuses what no command can load", "[distwriter]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto refused = [&](InitLocalOptions o, const std::string& why) {
    Status s = InitLocal(*env, o);
    CHECK(s.IsInvalidArgument());
    CHECK_THAT(s.message(), Catch::Contains(why));
    CHECK_FALSE(fs::exists(o.out));
    CHECK_FALSE(fs::exists(o.root));
  };
  const std::string conf = dir.File("c.conf");
  const std::string root = dir.File("roots");
  refused({kMaxWriters + 1, root, conf, "webdb", false}, "--writers 257: not in 1..256");
  refused({100000, root, conf, "webdb", false}, "not in 1..256");
  refused({0, root, conf, "webdb", false}, "not in 1..256");
  for (const char* db : {"../x", "a/b", "", ".", "..", "x#y", " x", "/abs"}) {
    INFO(db);
    refused({2, root, conf, db, false}, "--db");
  }
  refused({2, dir.File("a#b"), conf, "webdb", false}, "--root");
  refused({2, dir.File("a\nb"), conf, "webdb", false}, "--root");
  REQUIRE(InitLocal(*env, {kMaxWriters, root, conf, "my_db-2", false}).ok());
  auto loaded = DistConfig::Load(conf);
  REQUIRE(loaded);
  CHECK(loaded->k == kMaxWriters);
  CHECK(loaded->cluster.db == "my_db-2");
}

TEST_CASE("init-local on a full disk fails and leaves no temporary file", "[distwriter][fault]") {
  testutil::TempDir dir;
  auto local = nutchfs::NewLocalEnv();
  auto env = nutchfs::NewFaultEnv(local.get());
  fs::create_directories(dir.File("out"));
  for (nutchfs::FaultOp op :
       {nutchfs::FaultOp::kAppend, nutchfs::FaultOp::kSync, nutchfs::FaultOp::kRename}) {
    REQUIRE(env->Inject({op, 1, nutchfs::FaultKind::kError, -1}).ok());
    Status s = InitLocal(*env, Options(dir, dir.File("out/cluster.conf"), false));
    env->Clear();
    CHECK(s.IsIOError());
    CHECK(fs::is_empty(dir.File("out")));
  }
}

}  // namespace distwriter
