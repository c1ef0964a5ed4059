#include "nutchfs/fault_env.h"

#include <catch2/catch.hpp>
#include <cerrno>

#include "nutchfs/mem_env.h"

using nutchfs::FaultKind;
using nutchfs::FaultOp;
using nutchfs::FaultSpec;

namespace {

nutchfs::Status WriteFile(nutchfs::Env& env, const std::string& path, const std::string& data) {
  auto file = env.NewWritableFile(path);
  if (!file) return file.error();
  NUTCHFS_RETURN_IF_ERROR((*file)->Append(data));
  NUTCHFS_RETURN_IF_ERROR((*file)->Sync());
  return (*file)->Close();
}

}  // namespace

TEST_CASE("fault env fails the nth operation of a kind", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  REQUIRE(env->Inject({FaultOp::kRename, 2, FaultKind::kError}).ok());
  REQUIRE(WriteFile(*env, "/a", "1").ok());
  REQUIRE(env->RenameFile("/a", "/b").ok());  // the 1st rename passes
  nutchfs::Status s = env->RenameFile("/b", "/c");
  CHECK(s.IsIOError());
  CHECK_THAT(s.message(), Catch::Contains("injected fault") && Catch::Contains("/b"));
  CHECK(mem->FileExists("/b"));               // did nothing
  REQUIRE(env->RenameFile("/b", "/c").ok());  // only once (times = 1)
  CHECK(env->fired() == 1);
}

TEST_CASE("fault env can fail several operations in a row or forever", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  REQUIRE(env->Inject({FaultOp::kCreateDirs, 1, FaultKind::kError, 2}).ok());
  CHECK_FALSE(env->CreateDirs("/x").ok());
  CHECK_FALSE(env->CreateDirs("/x").ok());
  CHECK(env->CreateDirs("/x").ok());
  REQUIRE(env->Inject({FaultOp::kGetChildren, 1, FaultKind::kError, -1}).ok());
  for (int i = 0; i < 5; ++i) CHECK_FALSE(env->GetChildren("/x"));
  env->Clear();
  CHECK(env->GetChildren("/x"));
  CHECK(env->fired() == 0);
}

TEST_CASE("a dropped rename reports success and does nothing", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  REQUIRE(WriteFile(*env, "/tmp-file", "data").ok());
  REQUIRE(env->Inject({FaultOp::kRename, 1, FaultKind::kDrop}).ok());
  CHECK(env->RenameFile("/tmp-file", "/final").ok());
  CHECK(mem->FileExists("/tmp-file"));
  CHECK_FALSE(mem->FileExists("/final"));
}

TEST_CASE("a truncated transfer keeps a prefix and reports success", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  FaultSpec spec{FaultOp::kNewWritable, 1, FaultKind::kTruncate};
  spec.keep_bytes = 5;
  REQUIRE(env->Inject(spec).ok());
  REQUIRE(WriteFile(*env, "/f", "0123456789").ok());
  CHECK(*nutchfs::ReadFileToString(*mem, "/f") == "01234");
  REQUIRE(WriteFile(*env, "/g", "0123456789").ok());  // the next file is whole
  CHECK(*nutchfs::ReadFileToString(*mem, "/g") == "0123456789");
}

TEST_CASE("a failed append leaves half of its data written", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  REQUIRE(env->Inject({FaultOp::kAppend, 2, FaultKind::kError}).ok());
  auto file = env->NewWritableFile("/f");
  REQUIRE(file);
  REQUIRE((*file)->Append("abcd").ok());
  CHECK((*file)->Append("efgh").IsIOError());
  REQUIRE((*file)->Close().ok());
  CHECK(*nutchfs::ReadFileToString(*mem, "/f") == "abcdef");
}

TEST_CASE("fault env fails reads, opens, syncs and exclusive creates", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  REQUIRE(WriteFile(*env, "/f", "data").ok());
  REQUIRE(env->Inject({FaultOp::kRead, 1, FaultKind::kError}).ok());
  CHECK_FALSE(nutchfs::ReadFileToString(*env, "/f"));
  CHECK(nutchfs::ReadFileToString(*env, "/f"));
  REQUIRE(env->Inject({FaultOp::kNewSequential, 1, FaultKind::kError}).ok());
  CHECK_FALSE(env->NewSequentialFile("/f"));
  REQUIRE(env->Inject({FaultOp::kSync, 1, FaultKind::kError}).ok());
  CHECK(WriteFile(*env, "/g", "x").IsIOError());
  REQUIRE(env->Inject({FaultOp::kCreateExclusive, 1, FaultKind::kError}).ok());
  CHECK(env->CreateExclusive("/lock", "me").IsIOError());
  CHECK_FALSE(mem->FileExists("/lock"));
  REQUIRE(env->Inject({FaultOp::kGetFileSize, 1, FaultKind::kError}).ok());
  CHECK_FALSE(env->GetFileSize("/f"));
}

TEST_CASE("fault env reports an errno naming the operation and the file", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  struct Case {
    FaultOp op;
    int error;
    const char* text;
  };
  for (Case c : {Case{FaultOp::kAppend, ENOSPC, "append /f: No space left on device (ENOSPC)"},
                 Case{FaultOp::kSync, EIO, "sync /f: Input/output error (EIO)"},
                 Case{FaultOp::kNewWritable, EDQUOT, "open for writing /f: Disk quota exceeded (EDQUOT)"},
                 Case{FaultOp::kRename, ENOSPC, "rename /f to /g: No space left on device (ENOSPC)"}}) {
    CAPTURE(c.text);
    FaultSpec spec{c.op, 1, FaultKind::kError};
    spec.error = c.error;
    REQUIRE(env->Inject(spec).ok());
    nutchfs::Status s = WriteFile(*env, "/f", "data");
    if (s.ok()) s = env->RenameFile("/f", "/g");
    CHECK(s.IsIOError());
    CHECK(s.message() == c.text);
    env->Clear();
  }
}

TEST_CASE("fault env can limit a fault to the paths under a prefix", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  REQUIRE(env->CreateDirs("/m0").ok());
  REQUIRE(env->CreateDirs("/m1").ok());
  FaultSpec spec{FaultOp::kSync, 2, FaultKind::kError, -1};
  spec.error = ENOSPC;
  spec.path_prefix = "/m1/";
  REQUIRE(env->Inject(spec).ok());
  CHECK(WriteFile(*env, "/m1/a", "1").ok());  // the 1st sync under /m1
  CHECK(WriteFile(*env, "/m0/a", "1").ok());  // not counted
  CHECK(env->seen(FaultOp::kSync) == 1);
  CHECK_FALSE(WriteFile(*env, "/m1/b", "2").ok());
  CHECK_FALSE(WriteFile(*env, "/m1/c", "3").ok());  // a full disk stays full
  CHECK(WriteFile(*env, "/m0/b", "2").ok());
  CHECK(env->seen(FaultOp::kSync) == 3);
  CHECK(env->fired() == 2);
  CHECK(env->seen(FaultOp::kRename) == 0);  // nothing armed
}

TEST_CASE("fault env rejects faults that make no sense", "[nutchfs][fault]") {
  auto mem = nutchfs::NewMemEnv();
  auto env = nutchfs::NewFaultEnv(mem.get());
  CHECK(env->Inject({FaultOp::kRead, 1, FaultKind::kDrop}).IsInvalidArgument());
  CHECK(env->Inject({FaultOp::kRename, 1, FaultKind::kTruncate}).IsInvalidArgument());
  CHECK(env->Inject({FaultOp::kRename, 0, FaultKind::kError}).IsInvalidArgument());
  FaultSpec dropped_errno{FaultOp::kRename, 1, FaultKind::kDrop};
  dropped_errno.error = EIO;
  CHECK(env->Inject(dropped_errno).IsInvalidArgument());
}
