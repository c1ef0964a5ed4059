// JoinNotices (each producer's notices in a file of its own) and JoinChanges (them,
// merged, read forward against row keys).
#include "webdb/stages/join_changes.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "nutchfs/mem_env.h"
#include "test/util/edit_util.h"
#include "webdb/table/record.h"

namespace webdb {
namespace {

std::string_view FirstByte(std::string_view key) { return key.substr(0, 1); }

std::vector<std::string> NoticeFiles(nutchfs::Env& env) {
  auto children = env.GetChildren("/db");
  REQUIRE(children.has_value());
  std::vector<std::string> files;
  for (const std::string& name : *children) {
    if (name.find("-notices-") != std::string::npos) files.push_back(name);
  }
  return files;
}

TEST_CASE("notices of several producers come back merged, from any row key", "[join]") {
  auto env = nutchfs::NewMemEnv();
  REQUIRE(env->CreateDirs("/db").ok());
  {
    JoinNotices notices(*env, "/db", "targets", 7, 3);
    for (const char* key : {"a", "c"}) notices.Sink(0).Notice(key);
    for (const char* key : {"b", "c", "d"}) notices.Sink(2).Notice(key);
    REQUIRE(notices.Finish().ok());
    // Temporary names, one file a producer that noticed anything.
    CHECK(NoticeFiles(*env) == std::vector<std::string>{"targets-notices-000007.0.tmp.edits",
                                                        "targets-notices-000007.2.tmp.edits"});
    for (int pass = 0; pass < 2; ++pass) {  // each Read starts again
      auto changes = notices.Read(FirstByte);
      REQUIRE(changes.has_value());
      JoinChanges& c = **changes;
      CHECK(c.From("") == "a");
      CHECK(c.From("a") == "a");
      CHECK(c.From("az") == "a");  // its join key is noticed: "a" <= "az"
      CHECK(c.From("b1") == "b");
      CHECK(c.From("c") == "c");
      CHECK(c.From("cc") == "c");
      CHECK(c.From("d") == "d");
      CHECK(c.From("e") == std::nullopt);
      CHECK(c.status().ok());
    }
  }
  CHECK(NoticeFiles(*env).empty());  // removed with the object
}

TEST_CASE("no notices: no file, and no row changes", "[join]") {
  auto env = nutchfs::NewMemEnv();
  REQUIRE(env->CreateDirs("/db").ok());
  JoinNotices notices(*env, "/db", "md5s-gone", 3, 2);
  REQUIRE(notices.Finish().ok());
  CHECK(NoticeFiles(*env).empty());
  auto changes = notices.Read(Md5OfKey);
  REQUIRE(changes.has_value());
  CHECK((*changes)->From(std::string(40, 'x')) == std::nullopt);
}

TEST_CASE("a url notice stops exactly the rows of that url", "[join]") {
  auto env = nutchfs::NewMemEnv();
  REQUIRE(env->CreateDirs("/db").ok());
  JoinNotices notices(*env, "/db", "targets", 1, 1);
  notices.Sink(0).Notice("http://a/b");
  REQUIRE(notices.Finish().ok());
  auto changes = notices.Read(UrlOfLinkUrlKey);
  REQUIRE(changes.has_value());
  Md5 from{};
  from.fill(0xff);
  std::string before, at, after;
  SetLinkUrlKey("http://a/a", from, &before);
  SetLinkUrlKey("http://a/b", from, &at);
  SetLinkUrlKey("http://a/b/c", from, &after);  // the noticed url is a prefix of this one
  JoinChanges& c = **changes;
  std::optional<std::string_view> n = c.From(before);
  REQUIRE(n.has_value());
  CHECK(before < *n);  // unchanged, and so are the rows up to the notice
  n = c.From(at);
  REQUIRE(n.has_value());
  CHECK(*n <= at);  // a row of the noticed url
  CHECK(*n < after);
  CHECK(c.From(after) == std::nullopt);
}

TEST_CASE("notices out of order fail the producer, naming its file", "[join][fault]") {
  auto env = nutchfs::NewMemEnv();
  REQUIRE(env->CreateDirs("/db").ok());
  JoinNotices notices(*env, "/db", "targets", 2, 2);
  notices.Sink(1).Notice("b");
  notices.Sink(1).Notice("a");
  Status s = notices.Finish();
  CHECK(s.IsInvalidArgument());
  CHECK_THAT(s.ToString(), Catch::Contains("targets-notices-000002.1.tmp.edits"));
}

TEST_CASE("a damaged notice file is reported, and every row is then checked", "[join][fault]") {
  auto env = nutchfs::NewMemEnv();
  REQUIRE(env->CreateDirs("/db").ok());
  JoinNotices notices(*env, "/db", "targets", 2, 1);
  for (int i = 0; i < 100; ++i) notices.Sink(0).Notice("key" + std::to_string(100 + i));
  REQUIRE(notices.Finish().ok());
  const std::string path = "/db/targets-notices-000002.0.tmp.edits";
  auto bytes = nutchfs::ReadFileToString(*env, path);
  REQUIRE(bytes.has_value());
  std::string damaged = *bytes;
  damaged[damaged.size() / 2] ^= 0x40;
  REQUIRE(nutchfs::WriteFileAtomically(*env, path, damaged).ok());
  auto changes = notices.Read(FirstByte);
  REQUIRE(changes.has_value());
  CHECK((*changes)->From("z") == "");  // read to the end: the damage is met
  CHECK((*changes)->status().IsCorruption());
  CHECK_THAT((*changes)->status().ToString(), Catch::Contains(path));
}

TEST_CASE("JoinChanges over an iterator of notices skips those below each row", "[join]") {
  std::vector<testutil::OwnedEdit> keys = {{"b", 0, 0, ""}, {"b", 0, 0, ""}, {"x", 0, 0, ""}};
  JoinChanges c(FirstByte, testutil::NewVectorEditIterator(keys));
  CHECK(c.From("a") == "b");
  CHECK(c.From("b") == "b");
  CHECK(c.From("c") == "x");
  CHECK(c.From("y") == std::nullopt);
}

}  // namespace
}  // namespace webdb
