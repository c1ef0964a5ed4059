// webdb::CompactDb and CompactTables (docs/DESIGN.md, "Layered tables"): a db whose tables
// have runs (made by test/util/layer_tables.h) compacted into bases reads the same rows,
// verifies clean, keeps the layered version readable while it is kept, and deletes the
// run files once no kept version names them.
#include "webdb/db/compact.h"

#include <catch2/catch.hpp>

#include "nutchfs/scoped_lock.h"
#include "test/util/layer_tables.h"
#include "test/util/model_db.h"
#include "test/util/session_gen.h"
#include "webdb/db/reader.h"

namespace testutil {
namespace {

bool HasRuns(const webdb::Manifest& m) {
  for (const webdb::TableRuns& runs : m.runs) {
    if (!runs.empty()) return true;
  }
  return false;
}

webdb::Manifest Current(ModelDb& db) {
  auto m = webdb::ReadCurrentManifest(db.env(), db.dir());
  REQUIRE(m.has_value());
  return *m;
}

TEST_CASE("compact merges every table's runs into its base", "[compact][layered]") {
  GenOptions gen;
  gen.universe_urls = 300;
  gen.max_calls = 300;
  ModelDb db;
  SessionGenerator sessions(77, gen);
  for (int i = 0; i < 3; ++i) REQUIRE(db.Apply(sessions.Next()).ok());
  REQUIRE(LayerCurrentVersion(db.env(), db.dir(), 7, 4).ok());
  const webdb::Manifest layered = Current(db);
  REQUIRE(HasRuns(layered));
  REQUIRE(db.Check() == "");

  std::vector<std::string> steps;
  auto compacted =
      webdb::CompactDb(db.env(), db.dir(), [&](std::string_view s) { steps.emplace_back(s); });
  REQUIRE(compacted.has_value());
  CHECK(compacted->done);
  CHECK(compacted->version == layered.version + 1);
  CHECK(steps.front() == "compact");
  const webdb::Manifest after = Current(db);
  CHECK_FALSE(HasRuns(after));
  for (int t = 0; t < webdb::kNumTables; ++t) {
    const auto id = static_cast<webdb::TableId>(t);
    CHECK(after.records(id) == layered.records(id));
    CHECK(after.table(id).size() == 1);
  }
  CHECK(db.Check() == "");

  SECTION("the layered version stays readable while kept") {
    auto reader = webdb::Reader::Open(db.env(), db.dir(), layered.version);
    REQUIRE(reader.has_value());
    auto dump = DumpDb(**reader);
    REQUIRE(dump.has_value());
    CHECK(CompareDumps(db.model().ToDump(), *dump) == "");
  }
  SECTION("a db without runs is left as it is") {
    auto again = webdb::CompactDb(db.env(), db.dir(), {});
    REQUIRE(again.has_value());
    CHECK_FALSE(again->done);
    CHECK(again->version == after.version);
  }
  SECTION("run files go once no kept version names them") {
    REQUIRE(db.Apply(sessions.Next()).ok());
    REQUIRE(db.Apply(sessions.Next()).ok());
    // Versions layered + 2 and + 3 are kept; neither has runs.
    for (const webdb::TableRuns& runs : layered.runs) {
      for (const webdb::RunFile& run : runs) {
        CHECK_FALSE(db.env().FileExists(db.dir() + "/" + run.file.name));
      }
    }
    CHECK(db.Check() == "");
  }
  SECTION("refused while a writer holds the lock") {
    REQUIRE(LayerCurrentVersion(db.env(), db.dir(), 8, 2).ok());
    auto lock = nutchfs::ScopedLock::Acquire(db.env(), db.dir() + "/LOCK", "test writer");
    REQUIRE(lock.has_value());
    auto busy = webdb::CompactDb(db.env(), db.dir(), {});
    REQUIRE_FALSE(busy.has_value());
    CHECK(busy.error().IsBusy());
  }
}

}  // namespace
}  // namespace testutil
