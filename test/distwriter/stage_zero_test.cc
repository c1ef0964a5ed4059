#include "distwriter/stage_zero.h"

#include <catch2/catch.hpp>

#include "nutchfs/mem_env.h"
#include "webdb/sort/edit_file.h"

namespace distwriter {
namespace {

constexpr char kDigest[] = "0123456789abcdef0123456789abcdef";

// An edit file holding edits (key, kind, value), as a peer could send it.
void WriteEdits(nutchfs::Env& env, const std::string& path,
                const std::vector<std::tuple<std::string, uint8_t, std::string>>& edits) {
  auto w = webdb::EditFileWriter::Create(env, path, false);
  REQUIRE(w);
  for (const auto& [key, kind, value] : edits) REQUIRE((*w)->Add({key, 0, kind, value}).ok());
  REQUIRE((*w)->Finish().ok());
}

Result<StageZero> Read(nutchfs::Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto it, webdb::OpenEditFile(env, path));
  return ReadStageZero(*it, path);
}

void Write(nutchfs::Env& env, const std::string& path, const StageZero& s) {
  auto w = webdb::EditFileWriter::Create(env, path, false);
  REQUIRE(w);
  REQUIRE(WriteStageZero(**w, s).ok());
}

std::string ErrorOf(nutchfs::Env& env, const std::string& path) {
  auto got = Read(env, path);
  REQUIRE_FALSE(got);
  CHECK(got.error().IsCorruption());
  return got.error().message();
}

}  // namespace

TEST_CASE("stage 0 file: digest and url sample read back as written", "[distwriter]") {
  auto env = nutchfs::NewMemEnv();
  for (const StageZero& s :
       {StageZero{kDigest, {}}, StageZero{kDigest, {"http://a/", "http://b/\xc3\xa9", "z"}}}) {
    Write(*env, "/s0", s);
    auto got = Read(*env, "/s0");
    REQUIRE(got);
    CHECK(*got == s);
  }
}

TEST_CASE("stage 0 file: what a peer sends is checked before it reaches the round",
          "[distwriter]") {
  auto env = nutchfs::NewMemEnv();
  WriteEdits(*env, "/none", {{"http://a/", 1, ""}});
  CHECK_THAT(ErrorOf(*env, "/none"), Catch::Contains("/none: no input digest"));
  WriteEdits(*env, "/short", {{"", 0, "abc"}});
  CHECK_THAT(ErrorOf(*env, "/short"), Catch::Contains("no input digest"));
  WriteEdits(*env, "/upper", {{"", 0, "0123456789ABCDEF0123456789ABCDEF"}});
  CHECK_THAT(ErrorOf(*env, "/upper"), Catch::Contains("no input digest"));
  WriteEdits(*env, "/two", {{"", 0, kDigest}, {"", 0, kDigest}});
  CHECK_THAT(ErrorOf(*env, "/two"), Catch::Contains("/two: two input digests"));
  // A sample url the db would refuse would otherwise become a breakpoint of the round
  // manifest, which no reader could then decode.
  for (const std::string& url : {std::string(), std::string("http://a/\n"), std::string(65536, 'u'),
                                 std::string("a\0b", 3)}) {
    WriteEdits(*env, "/url", {{"", 0, kDigest}, {url, 1, ""}});
    CHECK_THAT(ErrorOf(*env, "/url"), Catch::Contains("/url: bad sample url: url "));
  }
  REQUIRE(env->CreateExclusive("/garbage", "not an edit file at all").ok());
  CHECK_THAT(ErrorOf(*env, "/garbage"), Catch::Contains("/garbage"));
}

}  // namespace distwriter
