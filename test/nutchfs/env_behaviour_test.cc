// The shared Env behaviour suite (test/util/env_behaviour.h) on the local and in-memory
// Envs, and on a FaultEnv with nothing armed.
#include "test/util/env_behaviour.h"

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <vector>

#include "nutchfs/fault_env.h"
#include "nutchfs/mem_env.h"
#include "nutchfs/publish.h"
#include "test/util/temp_dir.h"

TEST_CASE("local env shows the Env behaviour", "[nutchfs]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  testutil::CheckEnvBehaviour(*env, dir.path());
  CHECK(env->capabilities().local_paths);
  CHECK(env->capabilities().inotify);
}

TEST_CASE("a local file hands what it holds to the OS when asked to start writeback", "[nutchfs]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string path = dir.File("f");
  auto file = env->NewWritableFile(path);
  REQUIRE(file.has_value());
  auto contents = [&] {
    auto got = nutchfs::ReadFileToString(*env, path);
    REQUIRE(got.has_value());
    return *got;
  };
  REQUIRE((*file)->Append("first").ok());
  CHECK(contents().empty());  // still in the file's buffer
  (*file)->StartWriteback();
  CHECK(contents() == "first");
  (*file)->StartWriteback();  // nothing new: harmless
  REQUIRE((*file)->Append(std::string(3 << 20, 'x')).ok());
  (*file)->StartWriteback();
  REQUIRE((*file)->Append("last").ok());
  REQUIRE((*file)->Sync().ok());
  REQUIRE((*file)->Close().ok());
  CHECK(contents() == "first" + std::string(3 << 20, 'x') + "last");
}

// Full buffers are written in the background while the next fills: what arrives in any
// mix of small and large appends is the file's content, and a failed background write is
// reported by a later call (here: /dev/full, whose writes fail with ENOSPC).
TEST_CASE("a local file writes full buffers in the background and reports their errors",
          "[nutchfs]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  std::string expected;
  auto file = env->NewWritableFile(dir.File("f"));
  REQUIRE(file.has_value());
  for (size_t i = 0; i < 400; ++i) {
    const size_t size = i % 97 == 0 ? (3u << 20) / 2 : 1 + (i * 7919) % 40000;
    const std::string piece(size, static_cast<char>('a' + i % 26));
    REQUIRE((*file)->Append(piece).ok());
    expected += piece;
    if (i % 150 == 0) (*file)->StartWriteback();
  }
  REQUIRE((*file)->Close().ok());
  auto got = nutchfs::ReadFileToString(*env, dir.File("f"));
  REQUIRE(got.has_value());
  CHECK(got->size() == expected.size());
  CHECK(*got == expected);

  auto full = env->NewWritableFile("/dev/full");
  REQUIRE(full.has_value());
  nutchfs::Status s;
  for (int i = 0; i < 64 && s.ok(); ++i) s = (*full)->Append(std::string(64 << 10, 'x'));
  if (s.ok()) s = (*full)->Sync();
  CHECK_THAT(s.ToString(), Catch::Contains("write /dev/full") && Catch::Contains("No space"));
}

// A process killed inside CreateExclusive leaves its private file behind: that file must
// have a hidden temporary name (publish.h), which listings skip and a db's garbage
// collection removes. The names it creates are watched with inotify.
TEST_CASE("a local exclusive create writes under a hidden temporary name first", "[nutchfs]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::inotify_add_watch(fd, dir.path().c_str(), IN_CREATE) >= 0);
  REQUIRE(env->CreateExclusive(dir.File("LOCK"), "holder").ok());
  CHECK(env->CreateExclusive(dir.File("LOCK"), "other").IsBusy());
  std::vector<std::string> created;
  alignas(inotify_event) char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) {
    for (char* p = buf; p < buf + n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(p);
      created.emplace_back(e->name);
      p += sizeof(inotify_event) + e->len;
    }
  }
  ::close(fd);
  REQUIRE(created.size() == 3);  // private name, LOCK, the refused call's private name
  CHECK(created[1] == "LOCK");
  for (size_t i : {0, 2}) {
    INFO(created[i]);
    CHECK(created[i].starts_with(".tmp.LOCK."));
    CHECK(nutchfs::IsHiddenName(created[i]));
  }
  auto children = env->GetChildren(dir.path());
  REQUIRE(children.has_value());
  CHECK(*children == std::vector<std::string>{"LOCK"});
}

// A call stream piped into `webdb apply -` or `distwriter launch -` is read through a
// sequential file: its pipe's buffer is widened, and the file still reads what was written.
TEST_CASE("a local sequential file on a pipe widens the pipe's buffer to 1 MiB", "[nutchfs]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const std::string fifo = dir.File("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Opens without a reader; never blocks (a write that does not fit fails the test).
  const int writer = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK);
  REQUIRE(writer >= 0);
  CHECK(::fcntl(writer, F_GETPIPE_SZ) == 64 << 10);
  auto file = env->NewSequentialFile(fifo);
  REQUIRE(file.has_value());
  CHECK(::fcntl(writer, F_GETPIPE_SZ) == 1 << 20);
  const std::string sent(200 << 10, 'x');  // more than the old buffer held
  REQUIRE(::write(writer, sent.data(), sent.size()) == static_cast<ssize_t>(sent.size()));
  std::string scratch(sent.size(), '\0');
  auto got = (*file)->Read(sent.size(), scratch.data());
  REQUIRE(got.has_value());
  CHECK(*got == sent);
  ::close(writer);
}

TEST_CASE("memory env shows the Env behaviour", "[nutchfs]") {
  auto env = nutchfs::NewMemEnv();
  REQUIRE(env->CreateDirs("/base").ok());
  testutil::CheckEnvBehaviour(*env, "/base");
  CHECK_FALSE(env->capabilities().local_paths);
  CHECK_FALSE(env->capabilities().inotify);
}

TEST_CASE("fault env without faults shows the Env behaviour", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  REQUIRE(env->CreateDirs("/base").ok());
  testutil::CheckEnvBehaviour(*env, "/base");
  CHECK(env->fired() == 0);
}

TEST_CASE("memory env keeps separate instances and rejects relative paths", "[nutchfs]") {
  auto a = nutchfs::NewMemEnv();
  auto b = nutchfs::NewMemEnv();
  REQUIRE(nutchfs::WriteFileAtomically(*a, "/f", "x").ok());
  CHECK(a->FileExists("/f"));
  CHECK_FALSE(b->FileExists("/f"));
  CHECK(a->NewWritableFile("rel").error().IsInvalidArgument());
  CHECK(a->CreateDirs("/a/../b").IsInvalidArgument());
  CHECK(a->FileExists("/"));
}

TEST_CASE("memory env renames directories like POSIX", "[nutchfs]") {
  auto env = nutchfs::NewMemEnv();
  REQUIRE(env->CreateDirs("/a/b").ok());
  REQUIRE(env->CreateDirs("/full/x").ok());
  REQUIRE(env->CreateDirs("/empty").ok());
  REQUIRE(nutchfs::WriteFileAtomically(*env, "/a/b/f", "1").ok());
  CHECK_FALSE(env->RenameFile("/a", "/full").ok());   // target not empty
  CHECK_FALSE(env->RenameFile("/a", "/a/b/c").ok());  // into itself
  REQUIRE(env->RenameFile("/a", "/empty").ok());      // replaces an empty directory
  CHECK(*nutchfs::ReadFileToString(*env, "/empty/b/f") == "1");
  CHECK_FALSE(env->FileExists("/a/b"));
  CHECK_FALSE(env->RenameFile("/empty/b/f", "/full").ok());  // file over a directory
  CHECK_FALSE(env->RemoveFile("/full").ok());                // not a file
}
