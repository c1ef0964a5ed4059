// Opening a table as its manifest entry names it (webdb/db/manifest_table.h) and the reader
// retry loop (Reader::OpenRetrying): a missing file is NotFound naming file and manifest,
// another file Corruption naming both; only NotFound is retried.
#include "webdb/db/manifest_table.h"

#include <catch2/catch.hpp>
#include <string>

#include "test/util/corrupt.h"
#include "test/util/temp_dir.h"
#include "webdb/db/reader.h"
#include "webdb/table/table_builder.h"

namespace webdb {
namespace {

// A table of n rows at dir/name, and its manifest entry.
TableFile Build(nutchfs::Env& env, const testutil::TempDir& dir, const std::string& name, int n) {
  auto builder = TableBuilder::Create(env, dir.File(name));
  REQUIRE(builder.has_value());
  for (int i = 0; i < n; ++i) {
    REQUIRE((*builder)->Add("key" + std::to_string(100 + i), "value").ok());
  }
  REQUIRE((*builder)->Finish().ok());
  return TableFile{name, (*builder)->num_records(), (*builder)->file_size(),
                   (*builder)->file_crc()};
}

bool Says(const Status& s, std::initializer_list<std::string> parts) {
  for (const std::string& p : parts) {
    if (s.message().find(p) == std::string::npos) return false;
  }
  return true;
}

TEST_CASE("a table is opened and checked against its manifest entry", "[manifest_table]") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  const TableFile entry = Build(*env, dir, "t.tbl", 10);
  TableRef ref{dir.File("t.tbl"), entry, "MANIFEST-000004"};

  SECTION("the right file opens") {
    auto table = OpenTableOf(*env, {ref});
    REQUIRE(table.has_value());
    CHECK((*table)->num_records() == 10);
    CHECK(CheckTableOf(*env, ref).ok());
  }
  SECTION("a missing file is NotFound naming file and manifest") {
    ref.path = dir.File("none.tbl");
    auto table = OpenTableOf(*env, {ref});
    REQUIRE_FALSE(table.has_value());
    CHECK(table.error().IsNotFound());
    CHECK(Says(table.error(), {ref.path, "missing", "MANIFEST-000004"}));
    Status s = CheckTableOf(*env, ref);
    CHECK(s.IsNotFound());
    CHECK(Says(s, {ref.path, "MANIFEST-000004"}));
  }
  SECTION("a file of another size") {
    ref.entry.size += 1;
    for (Status s : {OpenTableOf(*env, {ref}).error(), CheckTableOf(*env, ref)}) {
      CHECK(s.IsCorruption());
      CHECK(Says(s, {ref.path, "size", "MANIFEST-000004 says"}));
    }
  }
  SECTION("a footer with another record count") {
    ref.entry.records = 11;
    for (Status s : {OpenTableOf(*env, {ref}).error(), CheckTableOf(*env, ref)}) {
      CHECK(s.IsCorruption());
      CHECK(Says(s, {ref.path, "footer counts 10 records, MANIFEST-000004 says 11"}));
    }
  }
  SECTION("a damaged footer") {
    testutil::FlipByte(ref.path, entry.size - 20);
    for (Status s : {OpenTableOf(*env, {ref}).error(), CheckTableOf(*env, ref)}) {
      CHECK(s.IsCorruption());
      CHECK(Says(s, {ref.path, "footer"}));
    }
  }
}

TEST_CASE("OpenRetrying retries NotFound only", "[manifest_table]") {
  int calls = 0;
  SECTION("NotFound is retried, another error ends the attempts") {
    auto reader = Reader::OpenRetrying([&]() -> Result<std::unique_ptr<TableSource>> {
      if (++calls < 3) return Err(Status::NotFound("gone"));
      return Err(Status::Corruption("third attempt"));
    });
    REQUIRE_FALSE(reader.has_value());
    CHECK(calls == 3);
    CHECK(reader.error().IsCorruption());
  }
  SECTION("NotFound every time gives up with the last error") {
    auto reader = Reader::OpenRetrying([&]() -> Result<std::unique_ptr<TableSource>> {
      ++calls;
      return Err(Status::NotFound("gone " + std::to_string(calls)));
    });
    REQUIRE_FALSE(reader.has_value());
    CHECK(calls == 5);
    CHECK(reader.error().message() == "gone 5");
  }
}

}  // namespace
}  // namespace webdb
