// distwriter::VerifyDistDb: a sound distributed db (k = 3, two rounds run by real
// `distwriter run` processes) has no finding; every kind of damage the checks name is
// reported, naming the file and the key or the writer and machine: a flipped byte, a
// missing table, left-over files, a key moved into another section, a writer on another
// round, and a cross-table invariant broken across sections. Tables are replaced by
// well-formed tables of other rows (the round manifest rewritten to match on every
// machine), which only the range and cross-table checks can notice.
#include "distwriter/dist_verify.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "distwriter/round_store.h"
#include "nutchfs/nutchfs.h"
#include "test/util/corrupt.h"
#include "test/util/dist_cluster.h"
#include "test/util/session_gen.h"
#include "webdb/table/table.h"
#include "webdb/table/table_builder.h"

namespace distwriter {
namespace {

using testutil::DistCluster;
using webdb::TableId;
using Rows = std::vector<std::pair<std::string, std::string>>;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
constexpr int kK = 3;

// A distributed db of three writers after two rounds of generated sessions.
struct TestDb {
  TestDb() : cluster(kDistwriter, kK, 60000), env(nutchfs::NewLocalEnv()) {
    testutil::GenOptions o;
    o.universe_urls = 60;
    o.hostile_bytes = false;
    testutil::SessionGenerator gen(11, o);
    std::vector<testutil::Session> sessions{gen.Next(), gen.Next()};
    std::vector<std::string> sample;
    for (const auto& s : sessions) {
      for (const auto& call : s) {
        if (call.op != testutil::Call::Op::kAddLink) sample.push_back(testutil::PageUrl(call));
      }
    }
    cluster.Create(sample);
    std::mt19937_64 cuts(5);
    for (const auto& s : sessions) cluster.RunRound(testutil::SplitSession(s, kK, cuts));
    round = cluster.Committed();
  }

  std::string Path(int section, TableId t) const {
    return cluster.GroupDir(section) + "/section/" + round.sections[section].table(t).front().name;
  }

  Rows Read(int section, TableId t) const {
    auto table = webdb::Table::Open(*env, Path(section, t));
    REQUIRE(table.has_value());
    Rows rows;
    auto it = (*table)->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) rows.emplace_back(it->key(), it->value());
    REQUIRE(it->status().ok());
    return rows;
  }

  // Replaces a section's table by a well-formed table of rows; the round manifest is
  // rewritten to match at every machine.
  void Replace(int section, TableId t, const Rows& rows) {
    const std::string old = Path(section, t);
    webdb::TableFile& f = round.sections[section].base_entries(t).front();
    f.name = webdb::TableFileName(t, round.version, "-replaced");
    auto builder = webdb::TableBuilder::Create(*env, Path(section, t));
    REQUIRE(builder.has_value());
    for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
    REQUIRE((*builder)->Finish().ok());
    f.records = rows.size();
    f.size = (*builder)->file_size();
    f.crc = (*builder)->file_crc();
    f.id = (*builder)->file_id();
    REQUIRE(env->RemoveFile(old).ok());
    for (int i = 0; i < kK; ++i) {
      std::ofstream(cluster.MetaDir(i) + "/" + RoundFileName(round.version)) << round.Encode();
    }
  }

  std::vector<std::string> Verify(webdb::VerifySummary* out = nullptr) {
    auto config = DistConfig::Load(cluster.config());
    REQUIRE(config.has_value());
    std::vector<std::string> findings;
    webdb::VerifyOptions options;
    options.memory_budget = 1 << 20;
    options.tmp_env = env.get();
    options.tmp_dir = cluster.dir().File("scratch");
    options.on_finding = [&](const webdb::Finding& f) { findings.push_back(f.ToString()); };
    auto summary = VerifyDistDb(*config, options);
    REQUIRE(summary.has_value());
    CHECK(summary->findings == findings.size());
    if (out) *out = *summary;
    return findings;
  }

  DistCluster cluster;
  std::unique_ptr<nutchfs::Env> env;
  RoundManifest round;
};

// True when some finding contains every one of parts.
bool Reported(const std::vector<std::string>& findings, const std::vector<std::string>& parts) {
  for (const std::string& f : findings) {
    bool all = true;
    for (const std::string& p : parts) all = all && f.find(p) != std::string::npos;
    if (all) return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& findings) {
  std::string out;
  for (const std::string& f : findings) out += f + "\n";
  return out;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  REQUIRE(out.good());
}

}  // namespace

TEST_CASE("a sound distributed db has no finding", "[verify]") {
  TestDb db;
  webdb::VerifySummary summary;
  const auto findings = db.Verify(&summary);
  INFO(Joined(findings));
  CHECK(findings.empty());
  CHECK(summary.clean());
  CHECK(summary.version == 3);
  CHECK(summary.versions_checked == std::vector<uint64_t>{3, 2});
  // Every section file of rounds 3 and 2 (kept), each once, every row of each.
  const std::string two = testutil::ReadFileOrEmpty(db.cluster.MetaDir(0) + "/ROUND-000002");
  auto round_two = RoundManifest::Decode(two, "ROUND-000002");
  REQUIRE(round_two.has_value());
  std::set<std::string> files;
  uint64_t rows = 0;
  for (const RoundManifest* r : {&db.round, &*round_two}) {
    for (int i = 0; i < kK; ++i) {
      for (int t = 0; t < webdb::kNumTables; ++t) {
        const webdb::TableFile& f = SectionFile(r->sections[i], TableId(t));
        if (files.insert(std::to_string(i) + "/" + f.name).second) rows += f.records;
      }
    }
  }
  CHECK(summary.files == files.size());
  CHECK(summary.files > kK * webdb::kNumTables);
  CHECK(summary.rows == rows);
  CHECK(summary.pages == db.round.num_pages());
  CHECK(summary.pages > 0);
  CHECK(summary.links > 0);
  CHECK_FALSE(summary.writer_running);
}

TEST_CASE("no distributed db is NotFound and so is a version it does not keep", "[verify]") {
  DistCluster cluster(kDistwriter, 2);
  auto config = DistConfig::Load(cluster.config());
  REQUIRE(config.has_value());
  auto env = nutchfs::NewLocalEnv();
  webdb::VerifyOptions options;
  options.tmp_env = env.get();
  options.tmp_dir = cluster.dir().File("scratch");
  auto none = VerifyDistDb(*config, options);
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().IsNotFound());
  cluster.Create();
  options.version = 2;
  auto versioned = VerifyDistDb(*config, options);
  REQUIRE_FALSE(versioned.has_value());
  CHECK(versioned.error().IsNotFound());
  CHECK_THAT(versioned.error().message(), Catch::Contains("round 2 is not kept"));
  options.version = 1;
  auto first = VerifyDistDb(*config, options);
  REQUIRE(first.has_value());
  CHECK(first->version == 1);
  CHECK(first->findings == 0);
}

TEST_CASE("damaged section files are reported with their file", "[verify][fault]") {
  TestDb db;
  SECTION("a flipped byte") {
    const std::string path = db.Path(1, TableId::kPagesByUrl);
    testutil::FlipByte(path, 20);
    const auto findings = db.Verify();
    INFO(Joined(findings));
    CHECK(Reported(findings, {path + ": ", "CRC32C"}));
  }
  SECTION("a missing table file") {
    const std::string path = db.Path(2, TableId::kLinksByMd5);
    REQUIRE(db.env->RemoveFile(path).ok());
    const auto findings = db.Verify();
    INFO(Joined(findings));
    CHECK(Reported(findings, {path + ": missing: named by ROUND-000003 section 2"}));
  }
  SECTION("left-over files: a section file, a round file, a temporary file") {
    const std::string table = db.cluster.GroupDir(0) + "/section/pagesByURL-000099.tbl";
    const std::string round_file = db.cluster.MetaDir(1) + "/ROUND-000001";
    const std::string tmp = db.cluster.MetaDir(2) + "/CURRENT.tmp.77";
    WriteFile(table, "left over");
    WriteFile(round_file, db.round.Encode());
    WriteFile(tmp, "ROUND-000004\n");
    const auto findings = db.Verify();
    INFO(Joined(findings));
    CHECK(findings.size() == 3);
    CHECK(Reported(findings, {table + ": left over: named by no manifest"}));
    CHECK(Reported(findings, {round_file + ": left over: a round neither kept nor pinned"}));
    CHECK(Reported(findings, {tmp + ": left over: temporary file"}));
  }
}

TEST_CASE("a running writer's unfinished files are not left over", "[verify]") {
  TestDb db;
  auto config = DistConfig::Load(db.cluster.config());
  REQUIRE(config);
  auto fs = nutchfs::NutchFs::Open(config->cluster, config->writer_machines[1]);
  REQUIRE(fs);
  auto held = (*fs)->TakeLease(config->WriterFile(1, "LOCK"), false);
  REQUIRE(held);
  // Round 4 is the one after the db's: a writer that fails it keeps its files, but not
  // those of a round that can no longer come.
  const std::string unfinished = db.cluster.GroupDir(1) + "/section/pagesByURL-000002-p9.tbl";
  const std::string orphan = db.cluster.GroupDir(0) + "/section/pagesByURL-000002-p9.tbl";
  WriteFile(unfinished, "being written");
  WriteFile(orphan, "left over");
  webdb::VerifySummary summary;
  const auto findings = db.Verify(&summary);
  INFO(Joined(findings));
  CHECK(summary.writer_running);
  CHECK(findings.size() == 1);
  CHECK(Reported(findings, {orphan + ": left over: named by no manifest"}));
  REQUIRE((*held)->Release().ok());
  CHECK(Reported(db.Verify(), {unfinished + ": left over: named by no manifest"}));
}

TEST_CASE("a key moved into another section's range is reported", "[verify][fault]") {
  TestDb db;
  for (TableId t : {TableId::kPagesByUrl, TableId::kPagesByMd5}) {
    Rows first = db.Read(0, t), second = db.Read(1, t);
    REQUIRE_FALSE(second.empty());
    // Section 1's first row moves to the end of section 0, where it sorts last.
    const std::string moved = second.front().first;
    first.push_back(second.front());
    second.erase(second.begin());
    db.Replace(0, t, first);
    db.Replace(1, t, second);
    const auto findings = db.Verify();
    INFO(Joined(findings));
    CHECK(Reported(findings, {db.Path(0, t) + ": " + webdb::DescribeKey(t, moved),
                              "key outside this section's range"}));
  }
}

TEST_CASE("a writer on another round is reported naming writer and machine", "[verify][fault]") {
  TestDb db;
  auto config = DistConfig::Load(db.cluster.config());
  REQUIRE(config.has_value());
  const std::string current = db.cluster.MetaDir(2) + "/CURRENT";
  SECTION("behind") {
    WriteFile(current, "ROUND-000002\n");
    const auto findings = db.Verify();
    INFO(Joined(findings));
    CHECK(findings.size() == 1);
    CHECK(Reported(findings, {current + ": " + config->Describe(2) +
                              " is on ROUND-000002, behind the db's ROUND-000003"}));
  }
  SECTION("ahead") {
    WriteFile(current, "ROUND-000004\n");
    const auto findings = db.Verify();
    INFO(Joined(findings));
    CHECK(findings.size() == 1);
    CHECK(Reported(findings, {current + ": " + config->Describe(2) +
                              " is on ROUND-000004, ahead of the db's ROUND-000003"}));
  }
  SECTION("no round installed at the meta group's view, some at others") {
    const std::string view = db.cluster.MetaDir(0) + "/CURRENT";
    REQUIRE(db.env->RemoveFile(view).ok());
    const auto findings = db.Verify();
    INFO(Joined(findings));
    CHECK(Reported(findings, {view + ": missing: the meta group's view has installed no round, "
                              "but " + config->Describe(1) + " is on ROUND-000003"}));
  }
  SECTION("a round manifest that differs from the view's") {
    RoundManifest other = db.round;
    other.token = std::string(32, '0');
    const std::string path = db.cluster.MetaDir(1) + "/ROUND-000003";
    WriteFile(path, other.Encode());
    const auto findings = db.Verify();
    INFO(Joined(findings));
    CHECK(Reported(findings, {path + ": differs from the db's round manifest"}));
  }
}

TEST_CASE("an invariant broken across sections is reported with its key", "[verify][fault]") {
  TestDb db;
  const Partition partition = db.round.partition();
  // A page of section 0's pagesByMD5 whose url lives in another section's pagesByURL.
  Rows rows = db.Read(0, TableId::kPagesByMd5);
  auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& row) {
    return partition.SectionOf(TableId::kPagesByUrl, row.first.substr(16)) != 0;
  });
  REQUIRE(it != rows.end());
  const std::string url = it->first.substr(16);
  const int url_section = partition.SectionOf(TableId::kPagesByUrl, url);
  rows.erase(it);
  db.Replace(0, TableId::kPagesByMd5, rows);
  const auto findings = db.Verify();
  INFO(Joined(findings));
  CHECK(Reported(findings, {db.Path(url_section, TableId::kPagesByUrl) + ": " +
                                webdb::DescribeKey(TableId::kPagesByUrl, url),
                            "record missing from pagesByMD5"}));
  CHECK(Reported(findings, {"pagesByMD5 of ROUND-000003", "numPages is"}));
}

TEST_CASE("a record missing from the url table is reported at its md5 section's file",
          "[verify][fault]") {
  TestDb db;
  const Partition partition = db.round.partition();
  // A link of section 1's linksByURL whose from md5 lives in another section's linksByMD5.
  Rows rows = db.Read(1, TableId::kLinksByUrl);
  std::string md5_key;
  auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& row) {
    const std::string& k = row.first;
    md5_key = k.substr(k.size() - 16) + k.substr(0, k.size() - 17);
    return partition.SectionOf(TableId::kLinksByMd5, md5_key) != 1;
  });
  REQUIRE(it != rows.end());
  const std::string url_key = it->first;
  const int md5_section = partition.SectionOf(TableId::kLinksByMd5, md5_key);
  rows.erase(it);
  db.Replace(1, TableId::kLinksByUrl, rows);
  const auto findings = db.Verify();
  INFO(Joined(findings));
  CHECK(Reported(findings, {db.Path(md5_section, TableId::kLinksByMd5) + ": " +
                                webdb::DescribeKey(TableId::kLinksByUrl, url_key),
                            "record missing from linksByURL"}));
  CHECK(Reported(findings, {"linksByMD5 of ROUND-000003", "numLinks is"}));
}

}  // namespace distwriter
