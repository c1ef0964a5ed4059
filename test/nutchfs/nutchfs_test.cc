// NutchFs over local roots: two or three "machines" are directories of one host.
#include "nutchfs/nutchfs.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "nutchfs/fault_env.h"
#include "nutchfs/mem_env.h"
#include "test/util/temp_dir.h"

using nutchfs::NutchFile;
using nutchfs::NutchFs;

namespace {

// Machines a, b, c under root; groups ga (a), gb (b), ab (a, b), all (a, b, c).
nutchfs::ClusterConfig Config(const std::string& root, int retries = 2) {
  std::string text = "db = crawl\nretries = " + std::to_string(retries) + "\n";
  for (const char* m : {"a", "b", "c"}) {
    text += std::string("[machine.") + m + "]\nlocation = " + root + "/" + m + "\n";
  }
  text += "[group.ga]\nmachines = a\n[group.gb]\nmachines = b\n";
  text += "[group.ab]\nmachines = a, b\n[group.all]\nmachines = a, b, c\n";
  auto config = nutchfs::ClusterConfig::Parse(text, root + "/test.conf");
  REQUIRE(config);
  return *config;
}

std::unique_ptr<NutchFs> OpenFs(const nutchfs::ClusterConfig& config, const std::string& machine,
                                nutchfs::NutchFsOptions options = {}) {
  auto fs = NutchFs::Open(config, machine, options);
  REQUIRE(fs);
  return std::move(*fs);
}

void WriteLocal(nutchfs::Env& env, const std::string& path, const std::string& data) {
  REQUIRE(nutchfs::WriteFileAtomically(env, path, data).ok());
}

std::string ReadLocal(nutchfs::Env& env, const std::string& path) {
  auto data = nutchfs::ReadFileToString(env, path);
  INFO(path);
  REQUIRE(data);
  return *data;
}

NutchFile File(const std::string& group, const std::string& name) {
  return NutchFile{"crawl", group, name};
}

// Every entry below dir, hidden ones included (to find leftover temporary files).
std::vector<std::string> AllEntries(nutchfs::Env& env, const std::string& dir) {
  std::vector<std::string> out;
  auto names = env.GetChildren(dir);
  if (!names) return out;
  for (const std::string& n : *names) {
    auto below = AllEntries(env, dir + "/" + n);
    out.push_back(n);
    for (const std::string& b : below) out.push_back(n + "/" + b);
  }
  return out;
}

bool HasTempFiles(nutchfs::Env& env, const std::string& dir) {
  auto all = AllEntries(env, dir);
  return std::any_of(all.begin(), all.end(),
                     [](const std::string& n) { return n.find(".tmp.") != std::string::npos; });
}

}  // namespace

TEST_CASE("a put on one machine arrives at another", "[nutchfs]") {
  testutil::TempDir dir;
  auto config = Config(dir.path());
  auto a = OpenFs(config, "a");
  auto b = OpenFs(config, "b");
  const NutchFile file = File("gb", "round-1/s1/from-0.edits");
  nutchfs::Status waited;
  std::thread waiter([&] { waited = b->WaitFor(file, "machine a", std::chrono::seconds(20)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  WriteLocal(a->local_env(), dir.File("work"), "edits from a");
  auto info = a->Put(dir.File("work"), file);
  waiter.join();
  REQUIRE(info);
  REQUIRE(waited.ok());
  CHECK(info->size == 12);
  auto path = b->LocalPath(file);
  REQUIRE(path);
  CHECK(*path == dir.path() + "/b/crawl/gb/round-1/s1/from-0.edits");
  CHECK(ReadLocal(b->local_env(), *path) == "edits from a");
  CHECK(*b->Stat(file) == *info);
  CHECK_FALSE(a->LocalPath(file));  // a does not hold gb
  CHECK_FALSE(HasTempFiles(b->local_env(), dir.path()));
}

TEST_CASE("a put reaches every machine of the group", "[nutchfs]") {
  testutil::TempDir dir;
  auto fs = OpenFs(Config(dir.path()), "c");
  WriteLocal(fs->local_env(), dir.File("work"), "manifest");
  REQUIRE(fs->Put(dir.File("work"), File("all", "CURRENT")));
  for (const char* m : {"a", "b", "c"}) {
    CHECK(ReadLocal(fs->local_env(), dir.path() + "/" + m + "/crawl/all/CURRENT") == "manifest");
  }
  CHECK_FALSE(fs->local_env().FileExists(dir.path() + "/a/crawl/gb"));
}

TEST_CASE("a put at one machine reaches that machine of the group only", "[nutchfs]") {
  testutil::TempDir dir;
  auto fs = OpenFs(Config(dir.path()), "c");
  WriteLocal(fs->local_env(), dir.File("work"), "decided");
  auto info = fs->PutAt(dir.File("work"), File("all", "ROUND-2"), "b");
  REQUIRE(info);
  CHECK(info->size == 7);
  CHECK(ReadLocal(fs->local_env(), dir.path() + "/b/crawl/all/ROUND-2") == "decided");
  for (const char* m : {"a", "c"}) {
    CHECK_FALSE(fs->local_env().FileExists(dir.path() + "/" + m + "/crawl/all/ROUND-2"));
  }
  auto outside = fs->PutAt(dir.File("work"), File("gb", "x"), "a");  // gb is b's alone
  REQUIRE_FALSE(outside);
  CHECK(outside.error().IsInvalidArgument());
  CHECK_THAT(outside.error().message(), Catch::Contains("not held by machine a"));
}

TEST_CASE("a move renames the working file into place and copies it to the others", "[nutchfs]") {
  testutil::TempDir dir;
  auto fs = OpenFs(Config(dir.path()), "c");
  WriteLocal(fs->local_env(), dir.File("slice"), "calls of writer 0");
  struct stat before;
  REQUIRE(::stat(dir.File("slice").c_str(), &before) == 0);
  REQUIRE(fs->Move(dir.File("slice"), File("all", "inputs/calls.jsonl")).ok());
  CHECK_FALSE(fs->local_env().FileExists(dir.File("slice")));
  for (const char* m : {"a", "b", "c"}) {
    CHECK(ReadLocal(fs->local_env(), dir.path() + "/" + m + "/crawl/all/inputs/calls.jsonl") ==
          "calls of writer 0");
  }
  // The first machine of the group got the working file itself: no byte was copied.
  struct stat after;
  REQUIRE(::stat((dir.path() + "/a/crawl/all/inputs/calls.jsonl").c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);
  CHECK_FALSE(HasTempFiles(fs->local_env(), dir.path()));
}

TEST_CASE("a move that cannot rename (another file system) copies and removes the working file",
          "[nutchfs][fault]") {
  testutil::TempDir dir;
  auto local = nutchfs::NewLocalEnv();
  auto faulty = nutchfs::NewFaultEnv(local.get());
  nutchfs::NutchFsOptions options;
  options.env = faulty.get();
  auto fs = OpenFs(Config(dir.path()), "a", options);
  WriteLocal(*local, dir.File("slice"), "calls of writer 1");
  nutchfs::FaultSpec cross{nutchfs::FaultOp::kRename, 1, nutchfs::FaultKind::kError};
  cross.error = EXDEV;
  cross.path_prefix = dir.File("slice");
  REQUIRE(faulty->Inject(cross).ok());
  REQUIRE(fs->Move(dir.File("slice"), File("ga", "inputs/calls.jsonl")).ok());
  CHECK(faulty->fired() == 1);
  CHECK(ReadLocal(*local, dir.path() + "/a/crawl/ga/inputs/calls.jsonl") == "calls of writer 1");
  CHECK_FALSE(local->FileExists(dir.File("slice")));
  CHECK_FALSE(HasTempFiles(*local, dir.path()));
  auto missing = fs->Move(dir.File("slice"), File("ga", "inputs/other.jsonl"));
  CHECK(missing.IsNotFound());
  CHECK(fs->List("crawl", "ga").value() == std::vector<std::string>{"inputs/calls.jsonl"});
}

TEST_CASE("a put replaces an older version atomically", "[nutchfs]") {
  testutil::TempDir dir;
  auto fs = OpenFs(Config(dir.path()), "a");
  WriteLocal(fs->local_env(), dir.File("v1"), "version 1");
  WriteLocal(fs->local_env(), dir.File("v2"), "version 2, longer");
  REQUIRE(fs->Put(dir.File("v1"), File("ab", "f")));
  REQUIRE(fs->Put(dir.File("v2"), File("ab", "f")));
  CHECK(ReadLocal(fs->local_env(), dir.path() + "/b/crawl/ab/f") == "version 2, longer");
  CHECK(*fs->List("crawl", "ab") == std::vector<std::string>{"f"});
}

TEST_CASE("many threads put into one group at once", "[nutchfs]") {
  testutil::TempDir dir;
  auto fs = OpenFs(Config(dir.path()), "a");
  constexpr int kThreads = 8, kFiles = 10;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string work = dir.File("work-" + std::to_string(t));
      const std::string data(1000 + t, static_cast<char>('a' + t));
      if (!nutchfs::WriteFileAtomically(fs->local_env(), work, data).ok()) ++failures;
      for (int i = 0; i < kFiles; ++i) {
        const std::string name = "t" + std::to_string(t) + "/f" + std::to_string(i);
        if (!fs->Put(work, File("ab", name))) ++failures;
        if (!fs->Put(work, File("ab", "shared"))) ++failures;  // everyone races on one name
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  auto names = fs->List("crawl", "ab");
  REQUIRE(names);
  CHECK(names->size() == kThreads * kFiles + 1);
  for (const char* m : {"a", "b"}) {
    std::string shared = ReadLocal(fs->local_env(), dir.path() + "/" + m + "/crawl/ab/shared");
    CHECK(shared.size() >= 1000);  // one writer's whole file, never a mix
    CHECK(shared == std::string(shared.size(), shared[0]));
  }
  CHECK_FALSE(HasTempFiles(fs->local_env(), dir.path()));
}

TEST_CASE("a wait that times out names the file and the sender", "[nutchfs]") {
  testutil::TempDir dir;
  auto b = OpenFs(Config(dir.path()), "b");
  auto start = std::chrono::steady_clock::now();
  nutchfs::Status s =
      b->WaitFor(File("gb", "round-1/from-0"), "machine a", std::chrono::milliseconds(50));
  auto took = std::chrono::steady_clock::now() - start;
  REQUIRE(s.IsTimeout());
  CHECK_THAT(s.message(), Catch::Contains("'crawl/gb/round-1/from-0'") &&
                              Catch::Contains("at machine b") &&
                              Catch::Contains("sent by machine a"));
  CHECK(took >= std::chrono::milliseconds(50));  // waited its time (how much longer: bench/)
}

TEST_CASE("WaitForUnless gives up when a file or a file in a directory appears, or when meanwhile fails", "[nutchfs]") {
  testutil::TempDir dir;
  auto a = OpenFs(Config(dir.path()), "a");
  auto b = OpenFs(Config(dir.path()), "b");
  const NutchFile wanted = File("gb", "round-1/from-0");
  const std::vector<NutchFile> unless = {File("gb", "round-1/failed"), File("all", "DECIDED")};
  const std::string work = dir.File("work");
  WriteLocal(a->local_env(), work, "x");

  // A hidden (temporary) file in the directory does not count; a visible one does.
  REQUIRE(b->local_env().CreateDirs(dir.path() + "/b/crawl/gb/round-1/failed").ok());
  WriteLocal(b->local_env(), dir.path() + "/b/crawl/gb/round-1/failed/.tmp.x", "partial");
  std::thread marker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    REQUIRE(a->Put(work, File("gb", "round-1/failed/from-2")));
  });
  auto given_up = b->WaitForUnless(wanted, unless, "machine a", std::chrono::seconds(30));
  marker.join();
  REQUIRE(given_up);
  REQUIRE(given_up->has_value());
  CHECK((*given_up)->name == "round-1/failed/from-2");

  REQUIRE(a->Delete(File("gb", "round-1/failed/from-2")).ok());
  REQUIRE(a->Put(work, File("all", "DECIDED")));
  given_up = b->WaitForUnless(wanted, unless, "machine a", std::chrono::seconds(30));
  REQUIRE(given_up);
  REQUIRE(given_up->has_value());
  CHECK((*given_up)->name == "DECIDED");

  // What the waiter does meanwhile (a process told to stop) ends the wait with its error.
  REQUIRE(a->Delete(File("all", "DECIDED")).ok());
  auto stopped = b->WaitForUnless(wanted, unless, "machine a", std::chrono::seconds(30),
                                  [] { return nutchfs::Status::IOError("stopped by signal 15"); });
  REQUIRE_FALSE(stopped);
  CHECK_THAT(stopped.error().message(), Catch::Contains("stopped by signal 15"));

  REQUIRE(a->Put(work, wanted));  // the awaited file wins over a marker
  given_up = b->WaitForUnless(wanted, unless, "machine a", std::chrono::seconds(30));
  REQUIRE(given_up);
  CHECK_FALSE(given_up->has_value());
  CHECK(b->WaitForUnless(wanted, {File("nogroup", "x")}, "a", std::chrono::seconds(1))
            .error()
            .IsInvalidArgument());
}

TEST_CASE("get copies a file from the group to a local file", "[nutchfs]") {
  testutil::TempDir dir;
  auto config = Config(dir.path());
  auto b = OpenFs(config, "b");
  WriteLocal(b->local_env(), dir.File("work"), "payload");
  REQUIRE(b->Put(dir.File("work"), File("gb", "x/y")));
  for (const char* machine : {"a", "b", ""}) {
    INFO("machine '" << machine << "'");
    auto fs = OpenFs(config, machine);
    const std::string out = dir.File(std::string("out-") + machine);
    auto info = fs->Get(File("gb", "x/y"), out);
    REQUIRE(info);
    CHECK(info->size == 7);
    CHECK(ReadLocal(fs->local_env(), out) == "payload");
  }
  auto missing = b->Get(File("gb", "nope"), dir.File("out"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().IsNotFound());
  CHECK_THAT(missing.error().message(), Catch::Contains("'crawl/gb/nope'"));
  auto no_dir = b->Get(File("gb", "x/y"), dir.File("missing/dir/out"));
  REQUIRE_FALSE(no_dir);
  CHECK(no_dir.error().IsNotFound());
  CHECK_THAT(no_dir.error().message(), Catch::Contains(dir.File("missing/dir") + " of "));
  CHECK_FALSE(std::filesystem::exists(dir.File("missing")));
}

TEST_CASE("delete, rename and list act on every machine of the group", "[nutchfs]") {
  testutil::TempDir dir;
  auto fs = OpenFs(Config(dir.path()), "a");
  nutchfs::Env& env = fs->local_env();
  WriteLocal(env, dir.File("work"), "w");
  for (const char* name : {"r1/s1/from-0", "r1/s1/from-1", "r1/s2/from-0", "top"}) {
    REQUIRE(fs->Put(dir.File("work"), File("ab", name)));
  }
  WriteLocal(env, dir.path() + "/a/crawl/ab/r1/.tmp.leftover", "x");
  CHECK(*fs->List("crawl", "ab") ==
        std::vector<std::string>{"r1/s1/from-0", "r1/s1/from-1", "r1/s2/from-0", "top"});
  CHECK(*fs->List("crawl", "ab", "r1/s1") ==
        std::vector<std::string>{"r1/s1/from-0", "r1/s1/from-1"});
  CHECK(fs->List("crawl", "ab", "none")->empty());
  CHECK(fs->List("crawl", "ga")->empty());

  REQUIRE(fs->Rename(File("ab", "top"), File("ab", "moved/top2")).ok());
  CHECK(env.FileExists(dir.path() + "/b/crawl/ab/moved/top2"));
  CHECK_FALSE(env.FileExists(dir.path() + "/b/crawl/ab/top"));
  CHECK(fs->Rename(File("ab", "top"), File("ab", "x")).IsNotFound());
  CHECK(fs->Rename(File("ab", "moved/top2"), File("ga", "x")).IsInvalidArgument());

  REQUIRE(fs->Delete(File("ab", "moved/top2")).ok());
  CHECK_FALSE(env.FileExists(dir.path() + "/a/crawl/ab/moved/top2"));
  CHECK(fs->Delete(File("ab", "moved/top2")).IsNotFound());

  REQUIRE(fs->DeleteDir(File("ab", "r1")).ok());
  CHECK_FALSE(env.FileExists(dir.path() + "/a/crawl/ab/r1"));
  CHECK_FALSE(env.FileExists(dir.path() + "/b/crawl/ab/r1"));
  CHECK(fs->DeleteDir(File("ab", "r1")).ok());
}

TEST_CASE("operations reject bad names, groups and machines", "[nutchfs]") {
  testutil::TempDir dir;
  auto config = Config(dir.path());
  auto fs = OpenFs(config, "a");
  WriteLocal(fs->local_env(), dir.File("work"), "w");
  CHECK(fs->Put(dir.File("work"), File("ab", "../../etc/x")).error().IsInvalidArgument());
  CHECK(fs->Put(dir.File("work"), File("ab", "/abs")).error().IsInvalidArgument());
  CHECK(fs->Put(dir.File("work"), NutchFile{"..", "ab", "x"}).error().IsInvalidArgument());
  auto unknown = fs->Put(dir.File("work"), File("nogroup", "x"));
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().IsInvalidArgument());
  CHECK_THAT(unknown.error().message(), Catch::Contains("nogroup"));
  CHECK(fs->WaitFor(File("ab", "a//b"), "x", std::chrono::milliseconds(1)).IsInvalidArgument());
  CHECK(fs->List("crawl", "ab", "../x").error().IsInvalidArgument());
  CHECK(fs->Put(dir.File("missing-work"), File("ab", "x")).error().IsNotFound());
  CHECK(fs->List("crawl", "ab")->empty());
  auto bad = NutchFs::Open(config, "zz");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().IsInvalidArgument());
}

TEST_CASE("NutchFs works the same over a memory env", "[nutchfs]") {
  auto mem = nutchfs::NewMemEnv();
  auto config = Config("/mem");
  nutchfs::NutchFsOptions options;
  options.env = mem.get();
  options.verify_checksum = true;
  auto a = OpenFs(config, "a", options);
  auto b = OpenFs(config, "b", options);
  WriteLocal(*mem, "/work", "in memory");
  nutchfs::Status waited;
  std::thread waiter([&] { waited = b->WaitFor(File("gb", "f"), "a", std::chrono::seconds(20)); });
  REQUIRE(a->Put("/work", File("gb", "f")));
  waiter.join();
  CHECK(waited.ok());
  CHECK(ReadLocal(*mem, "/mem/b/crawl/gb/f") == "in memory");
  CHECK(*b->List("crawl", "gb") == std::vector<std::string>{"f"});
  auto at_c = a->LocateAt(File("all", "x"), "c");
  REQUIRE(at_c);
  CHECK(at_c->path == "/mem/c/crawl/all/x");
  // The located Env is the memory env seen through the fence: a file made there is there.
  REQUIRE(at_c->env->CreateDirs("/mem/c/crawl/all").ok());
  REQUIRE(nutchfs::WriteFileAtomically(*at_c->env, at_c->path, "via c").ok());
  CHECK(ReadLocal(*mem, "/mem/c/crawl/all/x") == "via c");
  CHECK(a->LocateAt(File("gb", "x"), "a").error().IsInvalidArgument());
}

TEST_CASE("a faulty put leaves no visible file and a retry succeeds", "[nutchfs][fault]") {
  testutil::TempDir dir;
  auto local = nutchfs::NewLocalEnv();
  auto faulty = nutchfs::NewFaultEnv(local.get());
  nutchfs::NutchFsOptions options;
  options.env = faulty.get();
  auto fs = OpenFs(Config(dir.path(), /*retries=*/0), "a", options);
  WriteLocal(*local, dir.File("work"), std::string(100000, 'x'));
  nutchfs::FaultSpec truncate{nutchfs::FaultOp::kNewWritable, 1, nutchfs::FaultKind::kTruncate};
  truncate.keep_bytes = 4096;
  const std::vector<nutchfs::FaultSpec> faults = {
      truncate,
      {nutchfs::FaultOp::kRename, 1, nutchfs::FaultKind::kDrop},
      {nutchfs::FaultOp::kRename, 1, nutchfs::FaultKind::kError},
      {nutchfs::FaultOp::kAppend, 1, nutchfs::FaultKind::kError},
      {nutchfs::FaultOp::kSync, 1, nutchfs::FaultKind::kError},
  };
  for (const nutchfs::FaultSpec& fault : faults) {
    INFO("fault on op " << static_cast<int>(fault.op) << " kind " << static_cast<int>(fault.kind));
    REQUIRE(faulty->Inject(fault).ok());
    auto failed = fs->Put(dir.File("work"), File("ab", "data"));
    REQUIRE_FALSE(failed);
    CHECK(failed.error().IsIOError());
    CHECK_THAT(failed.error().message(), Catch::Contains("'crawl/ab/data'"));
    CHECK(fs->List("crawl", "ab")->empty());
    CHECK_FALSE(HasTempFiles(*local, dir.path() + "/a"));
    faulty->Clear();
    REQUIRE(fs->Put(dir.File("work"), File("ab", "data")));
    CHECK(*local->GetFileSize(dir.path() + "/b/crawl/ab/data") == 100000);
    REQUIRE(fs->Delete(File("ab", "data")).ok());
  }
}

TEST_CASE("put retries a failed transfer by itself", "[nutchfs][fault]") {
  testutil::TempDir dir;
  auto local = nutchfs::NewLocalEnv();
  auto faulty = nutchfs::NewFaultEnv(local.get());
  nutchfs::NutchFsOptions options;
  options.env = faulty.get();
  auto fs = OpenFs(Config(dir.path(), /*retries=*/2), "a", options);
  WriteLocal(*local, dir.File("work"), "retried data");
  nutchfs::FaultSpec truncate{nutchfs::FaultOp::kNewWritable, 1, nutchfs::FaultKind::kTruncate};
  truncate.keep_bytes = 3;
  REQUIRE(faulty->Inject(truncate).ok());
  auto info = fs->Put(dir.File("work"), File("ab", "f"));
  REQUIRE(info);
  CHECK(faulty->fired() == 1);
  CHECK(ReadLocal(*local, dir.path() + "/a/crawl/ab/f") == "retried data");
  REQUIRE(faulty->Inject({nutchfs::FaultOp::kRename, 1, nutchfs::FaultKind::kError, -1}).ok());
  CHECK_FALSE(fs->Put(dir.File("work"), File("ab", "g")));  // gives up after 3 attempts
  CHECK(faulty->fired() == 4);
  CHECK_FALSE(HasTempFiles(*local, dir.path()));
}

TEST_CASE("a symbolic link in a share directory is refused, whatever it points to",
          "[nutchfs][fault]") {
  namespace fs = std::filesystem;
  testutil::TempDir dir;
  auto config = Config(dir.path());
  auto a = OpenFs(config, "a");
  auto b = OpenFs(config, "b");
  WriteLocal(a->local_env(), dir.File("work"), "from a");
  REQUIRE(a->Put(dir.File("work"), File("gb", "round/ok")));
  // Outside every root: a secret file and a directory a link could lead writes into.
  fs::create_directories(dir.File("outside/dir"));
  WriteLocal(a->local_env(), dir.File("outside/secret"), "secret");
  const std::string group = dir.path() + "/b/crawl/gb";
  fs::create_symlink(dir.File("outside/secret"), group + "/round/from-1.edits");
  fs::create_directory_symlink(dir.File("outside/dir"), group + "/linked");

  auto refused = [](const nutchfs::Status& s, const std::string& link) {
    INFO(s.ToString());
    CHECK(s.IsRefused());
    CHECK_THAT(s.message(), Catch::Contains(link + " is a symbolic link below the NutchFS root"));
  };
  const std::string file_link = group + "/round/from-1.edits";
  const std::string dir_link = group + "/linked";
  // The file link: waiting ends (it is there), every read refuses it.
  CHECK(b->WaitFor(File("gb", "round/from-1.edits"), "a", std::chrono::seconds(5)).ok());
  refused(b->Stat(File("gb", "round/from-1.edits")).error(), file_link);
  refused(b->Get(File("gb", "round/from-1.edits"), dir.File("copy")).error(), file_link);
  refused(nutchfs::ReadFileToString(b->local_env(), file_link).error(), file_link);
  // The directory link: nothing is written, read or listed through it.
  refused(a->Put(dir.File("work"), File("gb", "linked/f")).error(), dir_link);
  refused(b->Stat(File("gb", "linked/x")).error(), dir_link);
  CHECK(b->local_env().FileExists(dir_link + "/x"));  // a wait ends, in the refusal above
  refused(b->List("crawl", "gb", "linked").error(), dir_link);
  CHECK(fs::is_empty(dir.File("outside/dir")));
  CHECK(ReadLocal(a->local_env(), dir.File("outside/secret")) == "secret");
  // A link itself may be removed, never what it points to.
  REQUIRE(b->Delete(File("gb", "round/from-1.edits")).ok());
  CHECK_FALSE(fs::is_symlink(file_link));
  CHECK(ReadLocal(a->local_env(), dir.File("outside/secret")) == "secret");
  CHECK(ReadLocal(b->local_env(), group + "/round/ok") == "from a");
  // Outside the roots (working files, standard input) links are followed as usual.
  fs::create_symlink(dir.File("outside/secret"), dir.File("work-link"));
  CHECK(*nutchfs::ReadFileToString(b->local_env(), dir.File("work-link")) == "secret");
}

// docs/NUTCHFS.md, "Machines that cannot be reached": with skip_unreachable a write to a
// group of several machines goes on without one that fails, and leaves it out from then
// on; without it, the write fails; either way this machine's own failures fail it.
TEST_CASE("a write skips a machine that cannot be reached, with skip_unreachable only",
          "[nutchfs][fault]") {
  testutil::TempDir dir;
  auto local = nutchfs::NewLocalEnv();
  auto faulty = nutchfs::NewFaultEnv(local.get());
  WriteLocal(*local, dir.File("work"), "replicated");
  nutchfs::FaultSpec b_down{nutchfs::FaultOp::kNewWritable, 1, nutchfs::FaultKind::kError, -1};
  b_down.path_prefix = dir.path() + "/b/";
  REQUIRE(faulty->Inject(b_down).ok());
  nutchfs::NutchFsOptions strict;
  strict.env = faulty.get();
  auto plain = OpenFs(Config(dir.path(), /*retries=*/0), "a", strict);
  CHECK_FALSE(plain->Put(dir.File("work"), File("all", "x")));
  CHECK(plain->Unreachable().empty());

  nutchfs::NutchFsOptions skipping = strict;
  skipping.skip_unreachable = true;
  auto fs = OpenFs(Config(dir.path(), /*retries=*/0), "a", skipping);
  REQUIRE(fs->Put(dir.File("work"), File("all", "x")));
  CHECK(fs->Unreachable() == std::vector<std::string>{"b"});
  CHECK(ReadLocal(*local, dir.path() + "/a/crawl/all/x") == "replicated");
  CHECK(ReadLocal(*local, dir.path() + "/c/crawl/all/x") == "replicated");
  CHECK_FALSE(local->FileExists(dir.path() + "/b/crawl/all/x"));
  // Left out from then on, even once it would work again.
  faulty->Clear();
  REQUIRE(fs->Put(dir.File("work"), File("all", "y")));
  CHECK_FALSE(local->FileExists(dir.path() + "/b/crawl/all/y"));
  REQUIRE(fs->Delete(File("all", "y")).ok());
  CHECK_FALSE(local->FileExists(dir.path() + "/a/crawl/all/y"));
  // A group held by the left-out machine alone cannot be written.
  CHECK_FALSE(fs->Put(dir.File("work"), File("gb", "z")));
  // This machine's own failure fails the write.
  nutchfs::FaultSpec a_down = b_down;
  a_down.path_prefix = dir.path() + "/a/";
  REQUIRE(faulty->Inject(a_down).ok());
  auto own = fs->Put(dir.File("work"), File("all", "w"));
  REQUIRE_FALSE(own);
  CHECK_THAT(own.error().message(), Catch::Contains("machine a"));
}

TEST_CASE("CopyAt makes a replica from another machine's copy", "[nutchfs]") {
  testutil::TempDir dir;
  auto local = nutchfs::NewLocalEnv();
  auto fs = OpenFs(Config(dir.path()), "");
  WriteLocal(*local, dir.File("work"), "copied between machines");
  REQUIRE(fs->PutAt(dir.File("work"), File("all", "f"), "b"));
  auto copied = fs->CopyAt(File("all", "f"), "b", "c");
  REQUIRE(copied);
  CHECK(copied->size == 23);
  CHECK(ReadLocal(*local, dir.path() + "/c/crawl/all/f") == "copied between machines");
  CHECK_FALSE(local->FileExists(dir.path() + "/a/crawl/all/f"));
  CHECK(fs->CopyAt(File("all", "f"), "a", "c").error().IsNotFound());
  CHECK(fs->CopyAt(File("ab", "f"), "b", "c").error().IsInvalidArgument());
}
