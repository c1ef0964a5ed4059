#include "nutchfs/power_loss_env.h"

#include <catch2/catch.hpp>

#include "test/util/env_behaviour.h"

namespace {

using nutchfs::PowerLossEnv;

// Writes path (created or truncated) and optionally syncs it; does not sync its directory.
void Write(nutchfs::Env& env, const std::string& path, const std::string& data, bool sync) {
  auto file = env.NewWritableFile(path);
  REQUIRE(file);
  REQUIRE((*file)->Append(data).ok());
  if (sync) REQUIRE((*file)->Sync().ok());
  REQUIRE((*file)->Close().ok());
}

// The contents of path, or "<absent>".
std::string Read(nutchfs::Env& env, const std::string& path) {
  auto data = nutchfs::ReadFileToString(env, path);
  if (!data && data.error().IsNotFound()) return "<absent>";
  REQUIRE(data);
  return *data;
}

TEST_CASE("power-loss env shows the Env behaviour", "[nutchfs]") {
  auto env = nutchfs::NewPowerLossEnv();
  REQUIRE(env->CreateDirs("/base").ok());
  testutil::CheckEnvBehaviour(*env, "/base");
}

TEST_CASE("a power loss keeps synced data and synced entries only", "[nutchfs][fault]") {
  auto env = nutchfs::NewPowerLossEnv();
  REQUIRE(env->CreateDirs("/d").ok());
  REQUIRE(env->SyncDir("/").ok());
  Write(*env, "/d/synced", "kept", true);
  Write(*env, "/d/unsynced", "lost", false);
  REQUIRE(env->SyncDir("/d").ok());
  Write(*env, "/d/synced", "new bytes, never synced", false);  // same inode, truncated
  Write(*env, "/d/no-entry", "synced, but its directory is not", true);
  env->LosePower();
  CHECK(Read(*env, "/d/synced") == "kept");
  CHECK(Read(*env, "/d/unsynced") == "");  // the entry was synced, its bytes never
  CHECK(Read(*env, "/d/no-entry") == "<absent>");
}

TEST_CASE("a power loss undoes renames, removals and new directories not synced",
          "[nutchfs][fault]") {
  auto env = nutchfs::NewPowerLossEnv();
  REQUIRE(env->CreateDirs("/a").ok());
  REQUIRE(env->CreateDirs("/b").ok());
  Write(*env, "/a/f", "f", true);
  Write(*env, "/a/g", "g", true);
  REQUIRE(env->SyncDir("/a").ok());
  REQUIRE(env->SyncDir("/").ok());
  REQUIRE(env->RenameFile("/a/f", "/a/f2").ok());
  REQUIRE(env->RemoveFile("/a/g").ok());
  REQUIRE(env->CreateDirs("/a/new/deeper").ok());
  REQUIRE(env->SyncDir("/a/new").ok());  // its entry in /a is not synced
  env->LosePower();
  CHECK(Read(*env, "/a/f") == "f");
  CHECK(Read(*env, "/a/f2") == "<absent>");
  CHECK(Read(*env, "/a/g") == "g");
  CHECK_FALSE(env->FileExists("/a/new"));
  CHECK(env->FileExists("/b"));
}

TEST_CASE("a rename between directories is durable in each directory synced",
          "[nutchfs][fault]") {
  auto env = nutchfs::NewPowerLossEnv();
  REQUIRE(env->CreateDirs("/a").ok());
  REQUIRE(env->CreateDirs("/b").ok());
  Write(*env, "/a/f", "data", true);
  REQUIRE(env->SyncDir("/a").ok());
  REQUIRE(env->SyncDir("/").ok());
  REQUIRE(env->RenameFile("/a/f", "/b/f").ok());
  REQUIRE(env->SyncDir("/b").ok());  // not /a: the file has both names after the loss
  env->LosePower();
  CHECK(Read(*env, "/a/f") == "data");
  CHECK(Read(*env, "/b/f") == "data");
  REQUIRE(env->RenameFile("/b/f", "/b/g").ok());  // one inode, two names: POSIX links
  REQUIRE(env->SyncDir("/b").ok());
  REQUIRE(env->SyncDir("/a").ok());
  env->LosePower();
  CHECK(Read(*env, "/b/g") == "data");
  CHECK(Read(*env, "/a/f") == "data");
}

TEST_CASE("a renamed directory takes its synced entries along", "[nutchfs][fault]") {
  auto env = nutchfs::NewPowerLossEnv();
  REQUIRE(env->CreateDirs("/x/sub").ok());
  Write(*env, "/x/sub/f", "in sub", true);
  REQUIRE(env->SyncDir("/x/sub").ok());
  REQUIRE(env->SyncDir("/x").ok());
  REQUIRE(env->SyncDir("/").ok());
  REQUIRE(env->RenameFile("/x", "/y").ok());
  Write(*env, "/y/sub/later", "entry never synced", true);
  REQUIRE(env->SyncDir("/").ok());
  env->LosePower();
  CHECK_FALSE(env->FileExists("/x"));
  CHECK(Read(*env, "/y/sub/f") == "in sub");
  CHECK(Read(*env, "/y/sub/later") == "<absent>");
}

TEST_CASE("CreateDirsDurably makes new directories survive a power loss", "[nutchfs][fault]") {
  auto env = nutchfs::NewPowerLossEnv();
  REQUIRE(nutchfs::CreateDirsDurably(*env, "/durable/dir/deep").ok());
  REQUIRE(env->CreateDirs("/plain/dir").ok());
  REQUIRE(nutchfs::WriteFileAtomically(*env, "/plain/dir/f", "1").ok());
  REQUIRE(nutchfs::WriteFileAtomically(*env, "/durable/dir/deep/f", "2").ok());
  env->RecordCrashPoints(true);
  REQUIRE(nutchfs::CreateDirsDurably(*env, "/durable/dir").ok());  // exists: syncs nothing
  CHECK(env->TakeCrashPoints().empty());
  env->LosePower();
  CHECK_FALSE(env->FileExists("/plain"));
  CHECK(Read(*env, "/durable/dir/deep/f") == "2");
}

TEST_CASE("files opened before a power loss fail after it", "[nutchfs][fault]") {
  auto env = nutchfs::NewPowerLossEnv();
  Write(*env, "/f", "x", true);
  REQUIRE(env->SyncDir("/").ok());
  auto out = env->NewWritableFile("/g");
  REQUIRE(out);
  auto in = env->NewRandomAccessFile("/f");
  REQUIRE(in);
  env->LosePower();
  nutchfs::Status s = (*out)->Append("y");
  CHECK(s.IsIOError());
  CHECK_THAT(s.message(), Catch::Contains("/g") && Catch::Contains("power lost"));
  char scratch[4];
  CHECK_FALSE((*in)->Read(0, 1, scratch));
  CHECK_FALSE(env->FileExists("/g"));
  CHECK(Read(*env, "/f") == "x");  // files opened now work
}

TEST_CASE("crash points record the durable state at every sync and rename",
          "[nutchfs][fault]") {
  auto env = nutchfs::NewPowerLossEnv();
  REQUIRE(env->CreateDirs("/d").ok());
  REQUIRE(env->SyncDir("/").ok());
  env->RecordCrashPoints(true);
  REQUIRE(nutchfs::WriteFileAtomically(*env, "/d/CURRENT", "one\n").ok());
  REQUIRE(nutchfs::WriteFileAtomically(*env, "/d/CURRENT", "two\n").ok());
  Write(*env, "/d/unsynced-rename", "bytes never synced", false);
  REQUIRE(env->RenameFile("/d/unsynced-rename", "/d/renamed").ok());
  env->RecordCrashPoints(false);
  std::vector<nutchfs::CrashPoint> points = env->TakeCrashPoints();
  // Per write: sync of the temporary file, the rename (lost and kept), directory sync;
  // then the last rename (lost and kept).
  REQUIRE(points.size() == 10);
  CHECK_THAT(points[0].event, Catch::StartsWith("sync /d/CURRENT.tmp."));
  CHECK_THAT(points[1].event, Catch::StartsWith("rename /d/CURRENT.tmp."));
  CHECK_THAT(points[2].event, Catch::EndsWith("on disk before its directory was synced"));
  CHECK(points[3].event == "sync directory /d");
  CHECK(points[0].image == points[1].image);  // a rename changes nothing durable
  std::vector<std::string> expected = {"<absent>", "<absent>", "one\n", "one\n", "one\n",
                                       "one\n",    "two\n",    "two\n", "two\n", "two\n"};
  for (size_t i = 0; i < points.size(); ++i) {
    CAPTURE(i, points[i].event);
    auto after = nutchfs::NewPowerLossEnv(*points[i].image);
    CHECK(Read(*after, "/d/CURRENT") == expected[i]);
  }
  auto kept = nutchfs::NewPowerLossEnv(*points[9].image);
  CHECK(Read(*kept, "/d/renamed") == "");  // renamed before its bytes were synced
  CHECK(env->TakeCrashPoints().empty());
}

TEST_CASE("an image outlives its env and restores into independent envs", "[nutchfs][fault]") {
  std::shared_ptr<const nutchfs::DurableImage> image;
  {
    auto env = nutchfs::NewPowerLossEnv();
    REQUIRE(nutchfs::WriteFileAtomically(*env, "/f", "durable").ok());
    image = env->Durable();
  }
  auto a = nutchfs::NewPowerLossEnv(*image);
  auto b = nutchfs::NewPowerLossEnv(*image);
  REQUIRE(nutchfs::WriteFileAtomically(*a, "/f", "changed in a").ok());
  CHECK(Read(*a, "/f") == "changed in a");
  CHECK(Read(*b, "/f") == "durable");
}

}  // namespace
