#include "distwriter/round_manifest.h"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "webdb/util/crc32c.h"

namespace distwriter {
namespace {

// text ending in the crc line of the text format (docs/FORMAT.md), as a writer makes it.
std::string WithCrc(std::string text) {
  return text + fmt::format("crc {:08x}\n", webdb::crc32c::Value(text));
}

RoundManifest TwoSections() {
  RoundManifest m;
  m.version = 3;
  m.k = 2;
  m.token = "0123456789abcdef";
  m.digests = {std::string(32, 'a'), std::string(32, 'b')};
  m.breakpoints = {"http://m.example/"};
  m.sections.resize(2);
  for (int i = 0; i < 2; ++i) {
    m.sections[i].version = 3;
    for (int t = 0; t < webdb::kNumTables; ++t) {
      m.sections[i].tables[t] = {
          webdb::TableFile{webdb::TableFileName(static_cast<webdb::TableId>(t), 3), 1, 53, 7}};
    }
  }
  return m;
}

}  // namespace

TEST_CASE("round manifest: encode and decode round-trip", "[distwriter]") {
  const RoundManifest m = TwoSections();
  auto back = RoundManifest::Decode(m.Encode(), "ROUND-000003");
  REQUIRE(back);
  CHECK(*back == m);
}

// Regression (round_manifest_fuzz): a manifest naming no files for its sections decoded,
// and encoded again to text with empty names that no reader could decode.
TEST_CASE("round manifest: every section must name its four table files", "[distwriter]") {
  const char kFuzzInput[] =
      "webdb-round 1\nversion  3\0\0\0\0\0\0\0\0 d 2db\0\0\0\0\0\0\0L 1\n"
      "writers  2cwe d 2db\0\0\0\0\0\0\0L 1\n";
  auto fuzzed = RoundManifest::Decode(WithCrc(std::string(kFuzzInput, sizeof(kFuzzInput) - 1)),
                                      "ROUND-000003");
  REQUIRE_FALSE(fuzzed);
  CHECK(fuzzed.error().IsCorruption());
  CHECK_THAT(fuzzed.error().message(),
             Catch::Contains("ROUND-000003:1: section 0 has no pagesByURL"));

  // A well-formed manifest with one section line left out.
  std::string text = TwoSections().Encode();
  text = text.substr(0, text.rfind("crc "));
  const size_t line = text.find("section 1 3 linksByMD5");
  REQUIRE(line != std::string::npos);
  text.erase(line, text.find('\n', line) + 1 - line);
  auto missing = RoundManifest::Decode(WithCrc(text), "ROUND-000003");
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message(), Catch::Contains("section 1 has no linksByMD5 file"));
}

TEST_CASE("round manifest: a section file outside the db directory is refused", "[distwriter]") {
  const std::string good = TwoSections().Encode();
  const std::string name =
      TwoSections().sections[1].table(webdb::TableId::kLinksByMd5).front().name;
  for (const std::string bad : {"../../etc/passwd", "..", "a/b.tbl"}) {
    std::string text = good.substr(0, good.rfind("crc "));
    text.replace(text.find(" " + name + " ", text.find("section 1 ")) + 1, name.size(), bad);
    auto m = RoundManifest::Decode(WithCrc(text), "ROUND-000003");
    REQUIRE_FALSE(m);
    CHECK(m.error().IsCorruption());
    CHECK_THAT(m.error().message(), Catch::Contains("is not a file name inside the db directory"));
  }
}


TEST_CASE("round manifest: keep and rollback and time lines round-trip and are written only when set",
          "[distwriter]") {
  RoundManifest m = TwoSections();
  REQUIRE(m.Encode().find("\nkeep ") == std::string::npos);
  REQUIRE(m.Encode().find("\nrollback ") == std::string::npos);
  REQUIRE(m.Encode().find("\ntime ") == std::string::npos);
  m.keep = 5;
  m.restores = 2;
  m.time_ms = 1795480158239;
  const std::string text = m.Encode();
  REQUIRE(text.find("\nkeep 5\n") != std::string::npos);
  REQUIRE(text.find("\nrollback 2\n") != std::string::npos);
  REQUIRE(text.find("\ntime 1795480158239\n") != std::string::npos);
  auto back = RoundManifest::Decode(text, "ROUND-000003");
  REQUIRE(back);
  REQUIRE(*back == m);
  auto plain = RoundManifest::Decode(TwoSections().Encode(), "ROUND-000003");
  REQUIRE(plain);
  REQUIRE(plain->keep == webdb::kDefaultKeep);
  REQUIRE(plain->restores == 0);
  REQUIRE(plain->time_ms == 0);
}

TEST_CASE("round manifest: a keep out of range or a rollback to a later round or a bad time is refused",
          "[distwriter]") {
  const std::string plain = TwoSections().Encode();
  const std::string body = plain.substr(0, plain.rfind("crc "));
  const size_t after_writers = body.find("writers 2\n") + std::string("writers 2\n").size();
  for (const std::string& line :
       {std::string("keep 0\n"), std::string("keep 10001\n"), std::string("keep -1\n"),
        std::string("keep x\n"), std::string("rollback 0\n"), std::string("rollback 3\n"),
        std::string("rollback 9\n"), std::string("time 0\n"), std::string("time -5\n")}) {
    CAPTURE(line);
    auto m = RoundManifest::Decode(WithCrc(body.substr(0, after_writers) + line +
                                           body.substr(after_writers)),
                                   "ROUND-000003");
    REQUIRE_FALSE(m);
    REQUIRE(m.error().IsCorruption());
    REQUIRE_THAT(m.error().message(), Catch::Contains("ROUND-000003:"));
  }
}

TEST_CASE("round manifest: a rank round is format 2 with its rank line", "[distwriter]") {
  RoundManifest m = TwoSections();
  CHECK_THAT(m.Encode(), Catch::StartsWith("webdb-round 1\n"));
  m.rank = webdb::RankInfo{{10, 1e-4, 0.85}, 6, 0.012345678901234};
  const std::string text = m.Encode();
  CHECK_THAT(text, Catch::StartsWith("webdb-round 2\n"));
  CHECK_THAT(text, Catch::Contains("\nrank 10 0.0001 0.85 6 0.012345678901234\n"));
  auto back = RoundManifest::Decode(text, "ROUND-000003");
  REQUIRE(back.has_value());
  CHECK(*back == m);
  // A rank line in a version 1 round, or a malformed one, is refused.
  const std::string body = text.substr(0, text.rfind("crc "));
  std::string v1 = body;
  v1.replace(0, 14, "webdb-round 1\n");
  std::string bad = body;
  bad.replace(bad.find("rank 10"), 7, "rank 0");
  for (const std::string& t : {v1, bad}) {
    auto refused = RoundManifest::Decode(WithCrc(t), "ROUND-000003");
    REQUIRE_FALSE(refused.has_value());
    CHECK_THAT(refused.error().ToString(), Catch::Contains("ROUND-000003:"));
  }
}

TEST_CASE("round manifest: a section's runs are run lines after its section line, format 3",
          "[distwriter][layered]") {
  RoundManifest m = TwoSections();
  webdb::Manifest& section = m.sections[1];
  const webdb::TableId t = webdb::TableId::kLinksByUrl;
  section.SetLayers(t, section.table(t),
                    {webdb::RunFile{{"linksByURL-000004-run.tbl", 5, 90, 0x12, 0x34}, 3, 1}});
  m.rank = webdb::RankInfo{{10, 1e-4, 0.85}, 6, 0.5};  // runs and rank: the runs' format
  const std::string text = m.Encode();
  CHECK_THAT(text, Catch::StartsWith("webdb-round 3\n"));
  CHECK_THAT(text, Catch::Contains("\nrun 1 " + std::to_string(section.version) +
                                   " linksByURL linksByURL-000004-run.tbl 5 90 00000012 "
                                   "0000000000000034 3 1\n"));
  auto back = RoundManifest::Decode(text, "ROUND-000003");
  REQUIRE(back.has_value());
  CHECK(*back == m);
  CHECK(back->sections[1].records(t) == section.table(t).front().records + 2);
  // A run line in a round of format 2 (rank) or 1, or counting more tags than rows, is
  // refused.
  const std::string body = text.substr(0, text.rfind("crc "));
  std::string v2 = body;
  v2.replace(0, 14, "webdb-round 2\n");
  std::string bad = body;
  bad.replace(bad.find("0000000000000034 3 1"), 20, "0000000000000034 5 1");
  for (const std::string& text_of : {v2, bad}) {
    auto refused = RoundManifest::Decode(WithCrc(text_of), "ROUND-000003");
    REQUIRE_FALSE(refused.has_value());
    CHECK_THAT(refused.error().ToString(), Catch::Contains("ROUND-000003:"));
  }
}

}  // namespace distwriter

namespace distwriter {

TEST_CASE("round manifest: holders round-trip, and a writer's machine alone is written as none",
          "[distwriter]") {
  RoundManifest m = TwoSections();
  m.SetHolders(0, {"a"}, "a");
  CHECK(m.holders.empty());
  CHECK(m.Encode().find("holders") == std::string::npos);
  CHECK(m.HoldersOf(1, "b") == std::vector<std::string>{"b"});
  m.SetHolders(1, {"b", "a"}, "b");
  CHECK(m.Encode().find("holders 1 b,a\n") != std::string::npos);
  CHECK(m.Encode().find("holders 0") == std::string::npos);
  auto back = RoundManifest::Decode(m.Encode(), "ROUND-000003");
  REQUIRE(back);
  CHECK(*back == m);
  CHECK(back->HoldersOf(0, "a") == std::vector<std::string>{"a"});
  CHECK(back->HoldersOf(1, "b") == std::vector<std::string>{"b", "a"});
  // A takeover's section held by a replica alone is recorded.
  m.SetHolders(0, {"b"}, "a");
  CHECK(m.Encode().find("holders 0 b\n") != std::string::npos);
  m.SetHolders(0, {"a"}, "a");
  m.SetHolders(1, {"b"}, "b");
  CHECK(m.holders.empty());
}

TEST_CASE("round manifest: bad holders lines are refused with their line", "[distwriter]") {
  const std::string base = TwoSections().Encode();
  const std::string body = base.substr(0, base.rfind("crc "));
  for (const char* bad : {"holders 2 a\n", "holders 0\n", "holders 0 a,,b\n", "holders 0 a,a\n",
                          "holders 0 .x\n", "holders 0 a b\n"}) {
    CAPTURE(bad);
    auto m = RoundManifest::Decode(WithCrc(body + bad), "ROUND-000003");
    REQUIRE_FALSE(m);
    CHECK(m.error().IsCorruption());
    CHECK_THAT(m.error().message(), Catch::Contains("ROUND-000003:"));
  }
  auto twice = RoundManifest::Decode(WithCrc(body + "holders 0 a\nholders 0 b\n"), "R");
  REQUIRE_FALSE(twice);
  CHECK_THAT(twice.error().message(), Catch::Contains("holders given twice"));
}

}  // namespace distwriter
