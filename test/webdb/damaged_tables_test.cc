// A db whose table files are not the ones its manifest names — swapped for a table of
// another db of the same size, missing, truncated, with a damaged footer: readers
// refuse to open it, naming the file and the manifest, and apply refuses to publish a
// version on top of it, leaving the db at its version.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "test/util/corrupt.h"
#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/manifest.h"
#include "webdb/reader.h"
#include "webdb/writer.h"

namespace webdb {
namespace {

Page MakePage(std::string url, std::string_view content) {
  Page p = Page::WithDefaults(std::move(url));
  p.md5 = Md5Of(content);
  return p;
}

// A db of one page (and, with a link, one link) made by two sessions.
struct Db {
  Db(const testutil::TempDir& tmp, const std::string& name, const std::string& url)
      : env(nutchfs::NewLocalEnv()), dir(tmp.File(name)) {
    REQUIRE(Writer::Create(*env, dir).ok());
    REQUIRE(testutil::RunSession(*env, dir, {testutil::AddPageCall(MakePage(url, url))}).ok());
  }
  Manifest Current() const {
    auto m = ReadCurrentManifest(*env, dir);
    REQUIRE(m.has_value());
    return *m;
  }
  std::string Path(TableId t) const { return dir + "/" + Current().table(t).name; }

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

}  // namespace
}  // namespace webdb
