// A db whose table files are not the ones its manifest names — swapped for a table of
// another db of the same size, missing, truncated, with a damaged footer or data block:
// readers refuse to open it, naming the file and the manifest, and apply refuses to
// publish a version on top of it, leaving the db at its version.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "test/util/corrupt.h"
#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/manifest.h"
#include "webdb/db/manifest_table.h"
#include "webdb/db/reader.h"
#include "webdb/db/writer.h"

namespace webdb {
namespace {

Page MakePage(std::string url, std::string_view content) {
  Page p = Page::WithDefaults(std::move(url));
  p.md5 = Md5Of(content);
  return p;
}

// A db of one page linking to itself.
struct Db {
  Db(const testutil::TempDir& tmp, const std::string& name, const std::string& url)
      : env(nutchfs::NewLocalEnv()), dir(tmp.File(name)) {
    REQUIRE(Writer::Create(*env, dir).ok());
    Link self;
    self.from = Md5Of(url);
    self.url = url;
    REQUIRE(testutil::RunSession(*env, dir,
                                 {testutil::AddPageCall(MakePage(url, url)),
                                  testutil::AddLinkCall(self)})
                .ok());
  }
  Manifest Current() const {
    auto m = ReadCurrentManifest(*env, dir);
    REQUIRE(m.has_value());
    return *m;
  }
  std::string Path(TableId t) const { return dir + "/" + Current().table(t).front().name; }

  std::unique_ptr<nutchfs::Env> env;
  std::string dir;
};

void CopyOver(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

TEST_CASE("a table swapped for one of the same size from another db is noticed", "[fault]") {
  testutil::TempDir tmp;
  Db a(tmp, "a", "http://a.example/"), b(tmp, "b", "http://b.example/");
  const std::string path = a.Path(TableId::kPagesByUrl);
  REQUIRE(std::filesystem::file_size(path) ==
          std::filesystem::file_size(b.Path(TableId::kPagesByUrl)));
  CopyOver(b.Path(TableId::kPagesByUrl), path);

  auto reader = Reader::Open(*a.env, a.dir);
  REQUIRE_FALSE(reader.has_value());
  CHECK(reader.error().IsCorruption());
  CHECK_THAT(reader.error().message(), Catch::Contains(path));
  CHECK_THAT(reader.error().message(), Catch::Contains("file id"));
  CHECK_THAT(reader.error().message(), Catch::Contains(ManifestFileName(a.Current().version)));

  // apply reads pagesByURL in stage 1 and refuses to carry the other db's pages forward.
  const uint64_t version = a.Current().version;
  Status s = testutil::RunSession(*a.env, a.dir,
                                  {testutil::AddPageCall(MakePage("http://c.example/", "c"))});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains(path));
  CHECK_THAT(s.message(), Catch::Contains("file id"));
  CHECK(a.Current().version == version);
}

// The files of dir, sorted.
std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("apply publishes no version on top of a damaged table it does not rewrite",
          "[fault]") {
  testutil::TempDir tmp;
  Db a(tmp, "a", "http://a.example/"), b(tmp, "b", "http://b.example/");
  // A new page rewrites pagesByURL, pagesByMD5 and linksByURL (its url is a new target);
  // no edit reaches linksByMD5. Whether a stage opens it to copy its blocks or only the
  // check before publishing does, the damage must stop the update, naming the file.
  const testutil::Session session = {testutil::AddPageCall(MakePage("http://c.example/", "c"))};
  const std::string path = a.Path(TableId::kLinksByMd5);
  const uint64_t size = std::filesystem::file_size(path);
  std::filesystem::copy_file(path, tmp.File("saved"));
  const Manifest before = a.Current();
  const std::vector<std::string> files = Listing(a.dir);
  std::string why;
  SECTION("missing") {
    std::filesystem::remove(path);
    why = "missing, named by";
  }
  SECTION("truncated") {
    testutil::TruncateFile(path, size - 1);
    why = "size " + std::to_string(size - 1) + " bytes,";
  }
  SECTION("corrupt footer") {
    testutil::FlipByte(path, size - 20);
    why = "footer checksum mismatch";
  }
  SECTION("swapped for a table of another db") {
    REQUIRE(std::filesystem::file_size(b.Path(TableId::kLinksByMd5)) == size);
    CopyOver(b.Path(TableId::kLinksByMd5), path);
    why = "file id";
  }
  SECTION("a byte flipped in a data block, which no stage reads") {
    testutil::FlipByte(path, 3);
    why = "file CRC32C";
  }
  Status s = testutil::RunSession(*a.env, a.dir, session);
  INFO(s.ToString());
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains(path));
  CHECK_THAT(s.message(), Catch::Contains(why));
  CHECK_THAT(s.message(), Catch::Contains("version 3 not published"));
  // The db is left as it was: same version, no file of the refused one.
  CHECK(a.Current() == before);
  std::filesystem::remove(path);
  std::filesystem::copy_file(tmp.File("saved"), path);
  CHECK(Listing(a.dir) == files);
  REQUIRE(Reader::Open(*a.env, a.dir).has_value());
  // Once the table is back, the same session applies.
  REQUIRE(testutil::RunSession(*a.env, a.dir, session).ok());
  CHECK(a.Current().version == before.version + 1);
}

TEST_CASE("a table that every version apply stops keeping names is not read again", "[fault]") {
  testutil::TempDir tmp;
  const std::string url = "http://a.example/";
  Db a(tmp, "a", url);  // version 2
  // The page again, unchanged: no stage reaches the link tables, which are carried over.
  const testutil::Session session = {testutil::AddPageCall(MakePage(url, url))};
  // Version 3 stops keeping version 1, whose tables were empty: the link tables are read
  // whole and checked.
  REQUIRE(testutil::RunSession(*a.env, a.dir, session).ok());
  const Manifest v3 = a.Current();
  REQUIRE(v3.version == 3);
  const std::string path = a.Path(TableId::kLinksByMd5);
  testutil::FlipByte(path, 3);
  const std::vector<TableRef> refs = TableRefsOf(a.dir, v3, TableId::kLinksByMd5, "v3");
  REQUIRE(refs.size() == 1);
  CHECK_THAT(CheckTableBytes(*a.env, refs.front()).ToString(), Catch::Contains("file CRC32C"));
  // Version 4 stops keeping version 2, which names the damaged file too: no sound copy of
  // it is dropped, so it is not read again (a stage that reads it still checks its blocks,
  // and verify its bytes).
  REQUIRE(testutil::RunSession(*a.env, a.dir, session).ok());
  CHECK(a.Current().version == 4);
  CHECK(a.Current().table(TableId::kLinksByMd5) == v3.table(TableId::kLinksByMd5));
}

TEST_CASE("a damaged block met in a stage is named with its stage and file and offset",
          "[fault]") {
  testutil::TempDir tmp;
  Db a(tmp, "a", "http://a.example/");
  const std::string path = a.Path(TableId::kPagesByUrl);
  const Manifest before = a.Current();
  testutil::FlipByte(path, 3);  // in the first (only) data block
  Status s = testutil::RunSession(*a.env, a.dir,
                                  {testutil::AddPageCall(MakePage("http://a.example/", "new"))});
  INFO(s.ToString());
  REQUIRE_FALSE(s.ok());
  CHECK(s.IsCorruption());
  CHECK_THAT(s.message(), Catch::Contains("stage 1 pagesByURL") && Catch::Contains(path) &&
                              Catch::Contains("offset 0") &&
                              Catch::Contains("version 3 not published"));
  CHECK(a.Current() == before);
}

TEST_CASE("a damaged block that a stage would copy whole stops the update", "[fault]") {
  testutil::TempDir tmp;
  auto env = nutchfs::NewLocalEnv();
  const std::string dir = tmp.File("db");
  REQUIRE(Writer::Create(*env, dir).ok());
  testutil::Session load;
  for (int i = 0; i < 3000; ++i) {
    load.push_back(testutil::AddPageCall(Page::WithDefaults(
        fmt::format("http://a.example/{:04d}/a-path-long-enough-to-fill-blocks", i))));
  }
  REQUIRE(testutil::RunSession(*env, dir, load).ok());
  auto before = ReadCurrentManifest(*env, dir);
  REQUIRE(before.has_value());
  const std::string path = dir + "/" + before->table(TableId::kPagesByUrl).front().name;
  // The first block gets no edit (the new url sorts after every other): stage 1 copies
  // it whole, bytes and CRC, without decoding it.
  testutil::FlipByte(path, 3);
  Status s = testutil::RunSession(*env, dir,
                                  {testutil::AddPageCall(Page::WithDefaults("http://z.example/"))});
  INFO(s.ToString());
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("stage 1 pagesByURL") && Catch::Contains(path) &&
                              Catch::Contains("block checksum mismatch at offset 0"));
  auto after = ReadCurrentManifest(*env, dir);
  REQUIRE(after.has_value());
  CHECK(*after == *before);
}

}  // namespace
}  // namespace webdb
