#include "distwriter/init_local.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "nutchfs/fault_env.h"
#include "test/util/temp_dir.h"

namespace distwriter {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
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
                                                        {"/dev/null", "a device"}};
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

  // --force replaces the entry itself: a symlink's target is left alone.
  REQUIRE(InitLocal(*env, Options(dir, dir.File("link"), true)).ok());
  CHECK_FALSE(fs::is_symlink(dir.File("link")));
  CHECK(Read(dir.File("link")) == made);
  CHECK(Read(dir.File("target")) == "precious");
  REQUIRE(InitLocal(*env, Options(dir, dir.File("fifo"), true)).ok());
  CHECK(fs::is_regular_file(dir.File("fifo")));
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
