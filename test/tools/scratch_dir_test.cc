// Scratch directories: made under $TMPDIR through the Env, one name per directory, a
// dead process's leftover of the same name emptied, everything removed on destruction.
#include "tools/scratch_dir.h"

#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "test/util/temp_dir.h"

TEST_CASE("a scratch directory is made under TMPDIR and removed with its files") {
  testutil::TempDir tmp;
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  auto env = nutchfs::NewLocalEnv();
  std::string first_path;
  {
    auto first = tools::ScratchDir::Create(*env, "test");
    auto second = tools::ScratchDir::Create(*env, "test");
    REQUIRE(first);
    REQUIRE(second);
    first_path = (*first)->path();
    CHECK(first_path.rfind(tmp.path() + "/webdb-test-" + std::to_string(::getpid()) + "-", 0) ==
          0);
    CHECK(first_path != (*second)->path());
    auto file = env->NewWritableFile((*first)->File("calls.jsonl"));
    REQUIRE(file);
    REQUIRE((*file)->Append("{}\n").ok());
    REQUIRE((*file)->Close().ok());
    CHECK(env->FileExists(first_path + "/calls.jsonl"));
  }
  CHECK_FALSE(env->FileExists(first_path));
  auto children = env->GetChildren(tmp.path());
  REQUIRE(children);
  CHECK(children->empty());
  if (saved.empty()) {
    ::unsetenv("TMPDIR");
  } else {
    ::setenv("TMPDIR", saved.c_str(), 1);
  }
}
