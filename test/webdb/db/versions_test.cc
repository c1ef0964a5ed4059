// Retained versions (webdb/db/versions.h, webdb/db/version_pin.h): a db keeps its `keep` newest
// versions readable, the setting changes with a session, rollback publishes a new version
// naming an old one's tables, and the collector deletes the files of a version it no
// longer keeps only when no live reader pins it (pins of readers that are gone are
// ignored and removed).
#include "nutchfs/clock.h"
#include "webdb/db/versions.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "nutchfs/lock_file.h"
#include "test/util/corrupt.h"
#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/reader.h"
#include "webdb/db/version_pin.h"
#include "webdb/db/writer.h"

namespace webdb {
namespace {

// A db whose version v (v >= 2) holds pages page1 .. page<v-1>.
struct Db {
  explicit Db(uint32_t keep) : env(nutchfs::NewLocalEnv()), dir(tmp.File("db")) {
    REQUIRE(Writer::Create(*env, dir, keep).ok());
  }
  void AddPage() {
    const std::string url = "http://page" + std::to_string(++pages) + "/";
    REQUIRE(testutil::RunSession(*env, dir, {testutil::AddPageCall(Page::WithDefaults(url))}).ok());
  }
  uint64_t Current() {
    auto v = ReadCurrentVersion(*env, dir);
    REQUIRE(v.has_value());
    return *v;
  }
  // The number of pages version v holds, or the error opening it.
  std::string PagesAt(uint64_t v) {
    auto reader = Reader::Open(*env, dir, v);
    if (!reader) return reader.error().ToString();
    return std::to_string((*reader)->NumPages());
  }
  bool Exists(const std::string& name) { return env->FileExists(dir + "/" + name); }

  testutil::TempDir tmp;
  std::unique_ptr<nutchfs::Env> env;
  std::string dir;
  int pages = 0;
};

TEST_CASE("a db keeps its keep newest versions readable", "[versions]") {
  Db db(3);
  for (int i = 0; i < 4; ++i) db.AddPage();
  REQUIRE(db.Current() == 5);
  CHECK(db.PagesAt(5) == "4");
  CHECK(db.PagesAt(4) == "3");
  CHECK(db.PagesAt(3) == "2");
  CHECK_THAT(db.PagesAt(2), Catch::Contains("version 2 of " + db.dir + " is not kept"));
  CHECK_THAT(db.PagesAt(2), Catch::Contains("versions 3..5"));
  CHECK_THAT(db.PagesAt(6), Catch::Contains("not kept"));
  CHECK_FALSE(db.Exists(ManifestFileName(2)));
  CHECK_FALSE(db.Exists(TableFileName(TableId::kPagesByUrl, 2)));
  auto list = ListVersions(*db.env, db.dir);
  REQUIRE(list.has_value());
  CHECK(list->keep == 3);
  REQUIRE(list->versions.size() == 3);
  CHECK(list->versions[0].version == 5);
  CHECK(list->versions[0].current);
  CHECK(list->versions[2].version == 3);
  CHECK(list->versions[2].pages == 2);
  CHECK(list->versions[2].bytes > 0);
  CHECK(list->versions[2].time_ms > 0);
}

TEST_CASE("the keep setting changes with a session, or alone", "[versions]") {
  Db db(2);
  for (int i = 0; i < 3; ++i) db.AddPage();
  REQUIRE(db.Current() == 4);
  SECTION("lowered by an empty session: a new version sharing every table") {
    auto writer = Writer::Open(*db.env, db.dir, {});
    REQUIRE(writer.has_value());
    (*writer)->set_keep(1);
    REQUIRE((*writer)->Close().ok());
    CHECK(db.Current() == 5);
    CHECK(db.PagesAt(5) == "3");
    CHECK_THAT(db.PagesAt(4), Catch::Contains("not kept"));
    CHECK_FALSE(db.Exists(ManifestFileName(4)));
  }
  SECTION("raised with a session: later versions are kept longer") {
    auto writer = Writer::Open(*db.env, db.dir, {});
    REQUIRE(writer.has_value());
    (*writer)->set_keep(4);
    REQUIRE((*writer)->AddPage(Page::WithDefaults("http://more/")).ok());
    REQUIRE((*writer)->Close().ok());
    db.AddPage();
    db.AddPage();
    CHECK(db.Current() == 7);
    for (uint64_t v = 4; v <= 7; ++v) CHECK(db.PagesAt(v) == std::to_string(v - 1));
  }
  SECTION("an empty session that keeps the setting publishes nothing") {
    auto writer = Writer::Open(*db.env, db.dir, {});
    REQUIRE(writer.has_value());
    (*writer)->set_keep(2);
    REQUIRE((*writer)->Close().ok());
    CHECK(db.Current() == 4);
  }
}

TEST_CASE("rollback publishes a new version naming the tables of a kept one", "[versions]") {
  Db db(3);
  for (int i = 0; i < 3; ++i) db.AddPage();
  REQUIRE(db.Current() == 4);
  auto result = RollbackDb(*db.env, db.dir, 2, {});
  REQUIRE(result.has_value());
  CHECK(result->done);
  CHECK(result->version == 5);
  CHECK(db.Current() == 5);
  CHECK(db.PagesAt(5) == "1");
  CHECK(db.PagesAt(4) == "3");  // still kept: the rollback can itself be rolled back
  auto m = ReadCurrentManifest(*db.env, db.dir);
  REQUIRE(m.has_value());
  CHECK(m->restores == 2);
  CHECK(m->table(TableId::kPagesByUrl).front().name == TableFileName(TableId::kPagesByUrl, 2));
  SECTION("a rerun does nothing") {
    auto again = RollbackDb(*db.env, db.dir, 2, {});
    REQUIRE(again.has_value());
    CHECK_FALSE(again->done);
    CHECK(db.Current() == 5);
  }
  SECTION("a version no longer kept is refused") {
    auto old = RollbackDb(*db.env, db.dir, 2 + 10, {});
    REQUIRE_FALSE(old.has_value());
    CHECK(old.error().IsNotFound());
    db.AddPage();
    db.AddPage();  // keep 3: versions 5..7; version 4 is gone
    auto gone = RollbackDb(*db.env, db.dir, 4, {});
    REQUIRE_FALSE(gone.has_value());
    CHECK_THAT(gone.error().message(), Catch::Contains("not kept"));
  }
  SECTION("the next session writes on top of the rolled back tables") {
    db.AddPage();
    CHECK(db.PagesAt(6) == "2");
  }
}

TEST_CASE("rollback refuses a kept version whose table is damaged, naming the file",
          "[versions][fault]") {
  Db db(3);
  for (int i = 0; i < 3; ++i) db.AddPage();
  REQUIRE(db.Current() == 4);
  // Version 2's pagesByURL, which only versions 2 and 3 name (4 rewrote it): a byte in
  // its data block, which opening the table (its footer) does not read.
  const std::string path = db.dir + "/" + TableFileName(TableId::kPagesByUrl, 2);
  testutil::FlipByte(path, 3);
  auto result = RollbackDb(*db.env, db.dir, 2, {});
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().IsCorruption());
  CHECK_THAT(result.error().message(), Catch::Contains(path) && Catch::Contains("file CRC32C"));
  CHECK(db.Current() == 4);
  CHECK_FALSE(db.Exists(ManifestFileName(5)));
  CHECK(db.PagesAt(4) == "3");
}

TEST_CASE("a version sharing every table is not published over a damaged one", "[versions][fault]") {
  Db db(3);
  for (int i = 0; i < 3; ++i) db.AddPage();
  REQUIRE(db.Current() == 4);
  testutil::FlipByte(db.dir + "/" + TableFileName(TableId::kPagesByUrl, 4), 3);
  // Lowering keep to 1 would delete versions 2 and 3, the last sound ones.
  auto writer = Writer::Open(*db.env, db.dir, {});
  REQUIRE(writer.has_value());
  (*writer)->set_keep(1);
  Status s = (*writer)->Close();
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("pagesByURL-000004.tbl") &&
                              Catch::Contains("version 5 not published"));
  CHECK(db.Current() == 4);
  CHECK(db.PagesAt(2) == "1");
}

TEST_CASE("a damaged kept manifest blocks neither writes nor reads, and dropping it recovers",
          "[versions][fault]") {
  Db db(3);
  for (int i = 0; i < 3; ++i) db.AddPage();
  REQUIRE(db.Current() == 4);
  testutil::FlipByte(db.dir + "/" + ManifestFileName(3), 20);
  auto list = ListVersions(*db.env, db.dir);
  REQUIRE(list.has_value());
  REQUIRE(list->versions.size() == 3);
  CHECK(list->versions[1].version == 3);
  CHECK_THAT(list->versions[1].damaged, Catch::Contains("checksum mismatch"));
  CHECK(list->versions[0].damaged.empty());
  CHECK_THAT(db.PagesAt(3), Catch::Contains("checksum mismatch"));
  CHECK(db.PagesAt(4) == "3");
  // Its files are not known: while it is kept, the collector deletes none of them.
  db.AddPage();
  CHECK(db.Current() == 5);
  CHECK(db.PagesAt(5) == "4");
  CHECK(db.Exists(TableFileName(TableId::kPagesByUrl, 3)));
  SECTION("rolled back to another version") {
    auto rolled = RollbackDb(*db.env, db.dir, 4, {});
    REQUIRE(rolled.has_value());
    CHECK(db.PagesAt(6) == "3");
  }
  SECTION("rolled back to it: refused") {
    auto rolled = RollbackDb(*db.env, db.dir, 3, {});
    REQUIRE_FALSE(rolled.has_value());
    CHECK(rolled.error().IsCorruption());
    CHECK(db.Current() == 5);
  }
  SECTION("dropped") {
    auto dropped = DropVersion(*db.env, db.dir, 3);
    REQUIRE(dropped.ok());
    CHECK_FALSE(db.Exists(ManifestFileName(3)));
    CHECK_FALSE(db.Exists(TableFileName(TableId::kPagesByUrl, 3)));
    CHECK(db.Exists(TableFileName(TableId::kPagesByUrl, 4)));
    list = ListVersions(*db.env, db.dir);
    REQUIRE(list.has_value());
    REQUIRE(list->versions.size() == 2);
    CHECK(list->versions[1].version == 4);
    CHECK_THAT(db.PagesAt(3), Catch::Contains("not kept"));
    CHECK(DropVersion(*db.env, db.dir, 3).IsNotFound());
  }
}

TEST_CASE("drop-version refuses the current version and a version a reader reads",
          "[versions]") {
  Db db(3);
  for (int i = 0; i < 2; ++i) db.AddPage();
  REQUIRE(db.Current() == 3);
  Status current = DropVersion(*db.env, db.dir, 3);
  CHECK_FALSE(current.ok());
  CHECK_THAT(current.message(), Catch::Contains("current"));
  auto reader = Reader::Open(*db.env, db.dir, uint64_t{2});
  REQUIRE(reader.has_value());
  Status read = DropVersion(*db.env, db.dir, 2);
  CHECK(read.IsBusy());
  reader->reset();
  CHECK(DropVersion(*db.env, db.dir, 2).ok());
  CHECK_THAT(db.PagesAt(2), Catch::Contains("not kept"));
  CHECK(db.PagesAt(3) == "2");
}

TEST_CASE("rollback is refused while a writer holds the db", "[versions]") {
  Db db(3);
  db.AddPage();
  auto writer = Writer::Open(*db.env, db.dir, {});
  REQUIRE(writer.has_value());
  auto result = RollbackDb(*db.env, db.dir, 1, {});
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().IsBusy());
  CHECK_THAT(result.error().message(), Catch::Contains(db.dir + "/LOCK"));
  REQUIRE((*writer)->Close().ok());
  CHECK(db.Current() == 2);
}

TEST_CASE("the collector spares a version a live reader pins", "[versions]") {
  Db db(1);
  db.AddPage();
  auto reader = Reader::Open(*db.env, db.dir);
  REQUIRE(reader.has_value());
  db.AddPage();
  db.AddPage();
  REQUIRE(db.Current() == 4);
  // Version 2 is not kept, but pinned: its files stay, and a new reader cannot open it.
  CHECK(db.Exists(ManifestFileName(2)));
  CHECK(db.Exists(TableFileName(TableId::kPagesByUrl, 2)));
  CHECK_FALSE(db.Exists(ManifestFileName(3)));
  CHECK_THAT(db.PagesAt(2), Catch::Contains("not kept"));
  auto page = (*reader)->GetPage("http://page1/");
  REQUIRE(page.has_value());
  CHECK(page->has_value());
  CHECK((*reader)->NumPages() == 1);
  reader->reset();
  db.AddPage();  // the collector runs when the writer opens and after it publishes
  CHECK_FALSE(db.Exists(ManifestFileName(2)));
  CHECK_FALSE(db.Exists(TableFileName(TableId::kPagesByUrl, 2)));
}

// Writes a pin of version for `owner` as a reader would.
void WritePin(Db& db, uint64_t version, const nutchfs::LockOwner& owner) {
  const std::string path =
      db.dir + "/" + kReadersDir + "/" + fmt::format("{:06d}-{}-{:016x}", version, owner.pid, 7);
  REQUIRE(nutchfs::AcquireLockFile(*db.env, path, owner).ok());
}

int PinFiles(Db& db) {
  auto names = db.env->GetChildren(db.dir + "/" + kReadersDir);
  return names ? static_cast<int>(names->size()) : 0;
}

TEST_CASE("pins of readers that are gone are ignored and removed", "[versions]") {
  Db db(1);
  db.AddPage();
  nutchfs::LockOwner owner = nutchfs::CurrentProcess("webdb reader");
  SECTION("a reader process on this host that has ended") {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    REQUIRE(child > 0);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    owner.pid = child;
  }
  SECTION("a reader on another host, past the lease") {
    owner.host = "elsewhere.example";
    owner.acquired_ms = nutchfs::NowMs() - kPinLeaseMs - 1000;
  }
  WritePin(db, 2, owner);
  REQUIRE(PinFiles(db) == 1);
  db.AddPage();
  CHECK_FALSE(db.Exists(ManifestFileName(2)));
  CHECK(PinFiles(db) == 0);
}

TEST_CASE("a pin from another host is honoured within the lease", "[versions]") {
  Db db(1);
  db.AddPage();
  nutchfs::LockOwner owner = nutchfs::CurrentProcess("webdb reader");
  owner.host = "elsewhere.example";
  WritePin(db, 2, owner);
  db.AddPage();
  CHECK(db.Exists(ManifestFileName(2)));
  CHECK(db.Exists(TableFileName(TableId::kPagesByUrl, 2)));
  auto list = ListVersions(*db.env, db.dir);
  REQUIRE(list.has_value());
  CHECK(list->versions.size() == 1);  // pinned, yet not kept: it is not listed
  CHECK(PinFiles(db) == 1);
}

}  // namespace
}  // namespace webdb
