// The manifest's text form (docs/FORMAT.md, "Manifests and CURRENT"): round trips,
// version 1 manifests still read, malformed ones rejected naming file and line.
#include "webdb/db/manifest.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

Manifest Sample() {
  Manifest m;
  m.version = 7;
  for (int i = 0; i < kNumTables; ++i) {
    m.tables[i] = {TableFile{TableFileName(static_cast<TableId>(i), 7 - i), uint64_t(10 + i),
                             uint64_t(1000 + i), 0xdeadbee0u + i, 0x0123456789abcdefull + i}};
  }
  return m;
}

// text without its crc line, followed by a correct one.
std::string WithCrc(std::string text) {
  return text + fmt::format("crc {:08x}\n", crc32c::Value(text));
}

TEST_CASE("a manifest decodes to what was encoded", "[manifest]") {
  const Manifest m = Sample();
  auto back = Manifest::Decode(m.Encode(), "MANIFEST-000007");
  REQUIRE(back.has_value());
  CHECK(*back == m);
  CHECK_THAT(m.Encode(), Catch::Contains("0123456789abcdef\n"));
}

TEST_CASE("a ranked version's manifest is format 4 and carries its rank line", "[manifest]") {
  Manifest m = Sample();
  m.rank = RankInfo{{20, 1e-10, 0.85}, 7, 0.1 + 0.2};  // 0.30000000000000004: read back exactly
  const std::string text = m.Encode();
  CHECK_THAT(text, Catch::StartsWith("webdb-manifest 4\n"));
  CHECK_THAT(text, Catch::Contains("\nrank 20 1e-10 0.85 7 0.30000000000000004\n"));
  auto back = Manifest::Decode(text, "MANIFEST-000007");
  REQUIRE(back.has_value());
  CHECK(*back == m);
  CHECK_THAT(Sample().Encode(), Catch::StartsWith("webdb-manifest 3\n"));

  SECTION("a rank line in a format 3 manifest, or a bad one, is rejected") {
    const std::string body = text.substr(0, text.rfind("crc "));
    std::string v3 = body;
    v3.replace(0, 17, "webdb-manifest 3\n");
    auto with_rank = [&](const std::string& fields) {
      std::string b = body;
      return b.replace(b.find("rank 20"), b.find('\n', b.find("rank 20")) - b.find("rank 20"),
                       "rank " + fields);
    };
    for (const std::string& bad_text :
         {v3, with_rank("0 0.0001 0.85 1 0"), with_rank("10 0.0001 1 1 0"),
          with_rank("10 -1 0.85 1 0"), with_rank("10 0.0001 0.85 11 0"),
          with_rank("10 0.0001 0.85 0 0"), with_rank("10 0.0001 0.85 1 -2"),
          with_rank("10 0.0001 0.85 1"), body + "rank 10 0.0001 0.85 1 0\n"}) {
      CAPTURE(bad_text);
      auto bad = Manifest::Decode(WithCrc(bad_text), "MANIFEST-000007");
      REQUIRE_FALSE(bad.has_value());
      CHECK_THAT(bad.error().message(), Catch::Contains("MANIFEST-000007:"));
    }
  }
}

TEST_CASE("a version 1 manifest is read with file ids 0", "[manifest]") {
  std::string text = "webdb-manifest 1\nversion 3\n";
  for (int i = 0; i < kNumTables; ++i) {
    text += fmt::format("table {} t{}.tbl 5 100 0000abcd\n", TableName(static_cast<TableId>(i)), i);
  }
  auto m = Manifest::Decode(WithCrc(text), "MANIFEST-000003");
  REQUIRE(m.has_value());
  CHECK(m->version == 3);
  REQUIRE(m->table(TableId::kLinksByUrl).size() == 1);
  CHECK(m->table(TableId::kLinksByUrl).front().name == "t3.tbl");
  CHECK(m->table(TableId::kLinksByUrl).front().id == 0);
  CHECK(m->table(TableId::kLinksByUrl).front().crc == 0xabcd);
}

TEST_CASE("a table in parts is named by a line a part, in key order", "[manifest]") {
  Manifest m = Sample();
  m.tables[2].push_back({"linksByMD5-000005-p1.tbl", 4, 900, 0x1234, 0x77});
  m.tables[2].push_back({"linksByMD5-000005-p2.tbl", 0, 61, 0x5678, 0x78});
  const std::string text = m.Encode();
  CHECK_THAT(text, Catch::StartsWith("webdb-manifest 3\n"));
  CHECK_THAT(text, Catch::Contains("table linksByMD5 linksByMD5-000005.tbl 12 1002 deadbee2 "
                                   "0123456789abcdf1\n"
                                   "table linksByMD5 linksByMD5-000005-p1.tbl 4 900 00001234 "
                                   "0000000000000077\n"
                                   "table linksByMD5 linksByMD5-000005-p2.tbl 0 61 00005678"));
  auto back = Manifest::Decode(text, "MANIFEST-000007");
  REQUIRE(back.has_value());
  CHECK(*back == m);
  CHECK(back->records(TableId::kLinksByMd5) == 16);
  CHECK(back->bytes(TableId::kLinksByMd5) == 1002 + 900 + 61);
  CHECK(back->NamesTableFile("linksByMD5-000005-p2.tbl"));
  CHECK_FALSE(back->NamesTableFile("linksByMD5-000005-p3.tbl"));

  SECTION("a file named twice is rejected") {
    std::string twice = text.substr(0, text.rfind("crc "));
    twice.replace(twice.find("linksByMD5-000005-p2.tbl"), 24, "linksByMD5-000005-p1.tbl");
    auto bad = Manifest::Decode(WithCrc(twice), "MANIFEST-000007");
    REQUIRE_FALSE(bad.has_value());
    CHECK_THAT(bad.error().message(),
               Catch::Contains("table file linksByMD5-000005-p1.tbl named twice"));
  }
}

TEST_CASE("a table's runs are run lines after its base, oldest first", "[manifest][layered]") {
  Manifest m = Sample();
  const TableId t = TableId::kPagesByMd5;
  m.SetLayers(t, m.table(t),
              {RunFile{{"pagesByMD5-000008-run.tbl", 9, 300, 0xabc, 0x11}, 4, 2},
               RunFile{{"pagesByMD5-000009-run.tbl", 3, 200, 0xdef, 0x12}, 0, 3}});
  const std::string text = m.Encode();
  CHECK_THAT(text, Catch::StartsWith("webdb-manifest 5\n"));
  CHECK_THAT(text, Catch::Contains("table pagesByMD5 pagesByMD5-000006.tbl 11 1001 deadbee1 "
                                   "0123456789abcdf0\n"
                                   "run pagesByMD5 pagesByMD5-000008-run.tbl 9 300 00000abc "
                                   "0000000000000011 4 2\n"
                                   "run pagesByMD5 pagesByMD5-000009-run.tbl 3 200 00000def "
                                   "0000000000000012 0 3\n"));
  auto back = Manifest::Decode(text, "MANIFEST-000009");
  REQUIRE(back.has_value());
  CHECK(*back == m);
  // The base's 11 rows, 4 - 2 and 0 - 3 by the runs.
  CHECK(back->records(t) == 11 + 4 - 2 - 3);
  CHECK(back->run_records(t) == 12);
  CHECK(back->bytes(t) == 1001 + 300 + 200);
  CHECK(back->NamesTableFile("pagesByMD5-000009-run.tbl"));
  CHECK(back->Files().size() == kNumTables + 2);

  SECTION("a new base drops the runs") {
    back->SetBase(t, back->table(t));
    CHECK(back->runs_of(t).empty());
    CHECK_THAT(back->Encode(), Catch::StartsWith("webdb-manifest 3\n"));
  }
  SECTION("a run line in a manifest of format 4 (rank) or less is refused") {
    std::string v4 = text.substr(0, text.rfind("crc "));
    v4.replace(0, 16, "webdb-manifest 4");
    auto bad = Manifest::Decode(WithCrc(v4), "MANIFEST-000009");
    REQUIRE_FALSE(bad.has_value());
    CHECK_THAT(bad.error().message(), Catch::Contains("MANIFEST-000009:7: malformed line 'run"));
  }
  SECTION("a run counting more inserts and removes than rows is refused") {
    std::string bad_counts = text.substr(0, text.rfind("crc "));
    bad_counts.replace(bad_counts.find("0000000000000012 0 3"), 20, "0000000000000012 1 3");
    auto bad = Manifest::Decode(WithCrc(bad_counts), "MANIFEST-000009");
    REQUIRE_FALSE(bad.has_value());
    CHECK_THAT(bad.error().message(),
               Catch::Contains("run pagesByMD5-000009-run.tbl counts more inserts and removes"));
  }
}

TEST_CASE("malformed manifests are Corruption naming file and line", "[manifest]") {
  std::string text = Sample().Encode();
  text.resize(text.rfind("crc "));
  SECTION("a table line without its id") {
    const size_t at = text.find("table linksByMD5");
    const size_t end = text.find('\n', at);
    text.erase(text.rfind(' ', end), end - text.rfind(' ', end));
  }
  SECTION("a table line with a field too many") {
    text.insert(text.find('\n', text.find("table linksByMD5")), " 7");
  }
  SECTION("an unknown line") { text.insert(text.find("table linksByMD5"), "colour blue\n"); }
  auto m = Manifest::Decode(WithCrc(text), "MANIFEST-000007");
  REQUIRE_FALSE(m.has_value());
  CHECK(m.error().IsCorruption());
  CHECK_THAT(m.error().message(), Catch::StartsWith("MANIFEST-000007:"));
}

TEST_CASE("a manifest with a wrong checksum is rejected", "[manifest]") {
  std::string text = Sample().Encode();
  text[text.find("version 7") + 8] = '8';
  auto m = Manifest::Decode(text, "MANIFEST-000007");
  REQUIRE_FALSE(m.has_value());
  CHECK_THAT(m.error().message(), Catch::Contains("checksum"));
}

// Regression (fuzzed): four table lines with one table twice passed the count and left a
// table without a file name; encoded again, no reader could decode the manifest. Since
// version 3 a table may have several lines (its parts), but never none.
TEST_CASE("a manifest naming a table twice and another not at all is rejected", "[manifest]") {
  std::string text = Sample().Encode();
  text.resize(text.rfind("crc "));
  const size_t links = text.find("table linksByURL");
  REQUIRE(links != std::string::npos);
  text.replace(links, text.find('\n', links) - links,
               "table pagesByURL x.tbl 1 2 00000003 0000000000000001");
  SECTION("version 3: the table without a line") {
    auto m = Manifest::Decode(WithCrc(text), "MANIFEST-000007");
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().IsCorruption());
    CHECK_THAT(m.error().message(), Catch::Contains("lacks a version or a table"));
  }
  SECTION("version 2: the table named twice") {
    text.replace(0, text.find('\n'), "webdb-manifest 2");
    auto m = Manifest::Decode(WithCrc(text), "MANIFEST-000007");
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().IsCorruption());
    CHECK_THAT(m.error().message(), Catch::Contains("table pagesByURL named twice"));
  }
}

TEST_CASE("a manifest naming a file outside the db directory is rejected", "[manifest]") {
  const std::string good = Sample().Encode();
  const std::string name = Sample().table(TableId::kPagesByMd5).front().name;
  for (const std::string bad : {"../MANIFEST-000001", ".", "/etc/passwd"}) {
    std::string text = good.substr(0, good.rfind("crc "));
    text.replace(text.find(name), name.size(), bad);
    auto m = Manifest::Decode(WithCrc(text), "MANIFEST-000007");
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().IsCorruption());
    CHECK_THAT(m.error().message(),
               Catch::Contains("MANIFEST-000007:") &&
                   Catch::Contains("is not a file name inside the db directory"));
  }
}

}  // namespace
}  // namespace webdb
