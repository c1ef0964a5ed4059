// webdb::VerifyDb: a sound db has no finding; every kind of damage the checks name is
// reported, naming the file and the offset or key. Damage is made with the byte-level
// helpers of test/util/corrupt.h, and by replacing a table with a well-formed table of
// other rows (its manifest entry rewritten to match), which only the cross-table checks
// can notice.
#include "webdb/inspect/verify.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "test/util/corrupt.h"
#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/manifest.h"
#include "webdb/db/writer.h"
#include "webdb/table/layered_table.h"
#include "webdb/table/table.h"
#include "webdb/table/table_builder.h"
#include "webdb/table/table_format.h"
#include "webdb/util/coding.h"
#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

Page MakePage(std::string url, std::string_view content, int32_t outlinks) {
  Page p = Page::WithDefaults(std::move(url));
  p.md5 = Md5Of(content);
  p.num_outlinks = outlinks;
  return p;
}

Link MakeLink(std::string_view content, std::string url) {
  Link l;
  l.from = Md5Of(content);
  l.url = std::move(url);
  l.anchor = "anchor";
  return l;
}

// http://a/ and http://c/ share content A; A links to b and c, B links to a.
struct TestDb {
  TestDb() : env(nutchfs::NewLocalEnv()), dir(tmp.File("db")) {
    REQUIRE(Writer::Create(*env, dir).ok());
    testutil::Session s = {
        testutil::AddPageCall(MakePage("http://a/", "A", 2)),
        testutil::AddPageCall(MakePage("http://b/", "B", 0)),
        testutil::AddPageCall(MakePage("http://c/", "A", 1)),
        testutil::AddLinkCall(MakeLink("A", "http://b/")),
        testutil::AddLinkCall(MakeLink("A", "http://c/")),
        testutil::AddLinkCall(MakeLink("B", "http://a/")),
    };
    REQUIRE(testutil::RunSession(*env, dir, s, {}).ok());
  }

  Manifest Current() {
    auto m = ReadCurrentManifest(*env, dir);
    REQUIRE(m.has_value());
    return *m;
  }
  std::string Path(TableId t) { return dir + "/" + Current().table(t).front().name; }

  Rows Read(TableId t) {
    auto table = Table::Open(*env, Path(t));
    REQUIRE(table.has_value());
    Rows rows;
    auto it = (*table)->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) rows.emplace_back(it->key(), it->value());
    REQUIRE(it->status().ok());
    return rows;
  }

  // Replaces table t by a well-formed table of rows and rewrites the manifest to match.
  void Replace(TableId t, const Rows& rows) {
    Manifest m = Current();
    TableFile& f = m.base_entries(t).front();
    std::string old = dir + "/" + f.name;
    f.name = TableFileName(t, m.version, "-replaced");
    auto builder = TableBuilder::Create(*env, dir + "/" + f.name);
    REQUIRE(builder.has_value());
    for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
    REQUIRE((*builder)->Finish().ok());
    f.records = rows.size();
    f.size = (*builder)->file_size();
    f.crc = (*builder)->file_crc();
    f.id = (*builder)->file_id();
    REQUIRE(InstallManifest(*env, dir, m).ok());
    REQUIRE(env->RemoveFile(old).ok());
  }

  // Adds a run over table t (docs/FORMAT.md, "Run files") of rows as stored (tag first),
  // named by the manifest with these counts of inserts and removes.
  void AddRun(TableId t, const Rows& stored, uint64_t inserts, uint64_t removes) {
    Manifest m = Current();
    RunFile run{{TableFileName(t, m.version, "-run" + std::to_string(m.runs_of(t).size()))},
                inserts, removes};
    auto builder = TableBuilder::Create(*env, dir + "/" + run.file.name);
    REQUIRE(builder.has_value());
    for (const auto& [k, v] : stored) REQUIRE((*builder)->Add(k, v).ok());
    REQUIRE((*builder)->Finish().ok());
    run.file.records = stored.size();
    run.file.size = (*builder)->file_size();
    run.file.crc = (*builder)->file_crc();
    run.file.id = (*builder)->file_id();
    TableRuns runs = m.runs_of(t);
    runs.push_back(run);
    m.SetLayers(t, m.table(t), std::move(runs));
    REQUIRE(InstallManifest(*env, dir, m).ok());
  }

  std::vector<std::string> Verify(VerifySummary* out = nullptr) {
    std::vector<std::string> findings;
    VerifyOptions options;
    options.memory_budget = 1 << 20;
    options.tmp_env = env.get();
    options.tmp_dir = tmp.File("scratch");
    options.on_finding = [&](const Finding& f) { findings.push_back(f.ToString()); };
    auto summary = VerifyDb(*env, dir, options);
    REQUIRE(summary.has_value());
    CHECK(summary->findings == findings.size());
    if (out) *out = *summary;
    return findings;
  }

  testutil::TempDir tmp;
  std::unique_ptr<nutchfs::Env> env;
  std::string dir;
};

// True when some finding contains every one of parts.
bool Reported(const std::vector<std::string>& findings, std::vector<std::string> parts) {
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

TEST_CASE("a sound db has no finding", "[verify]") {
  TestDb db;
  VerifySummary summary;
  auto findings = db.Verify(&summary);
  INFO(Joined(findings));
  CHECK(findings.empty());
  CHECK(summary.clean());
  // Version 2's four tables, and version 1's (kept: four empty ones).
  CHECK(summary.files == 8);
  CHECK(summary.versions_checked == std::vector<uint64_t>{2, 1});
  CHECK(summary.pages == 3);
  CHECK(summary.links == 3);
  CHECK(summary.rows == 12);
}

TEST_CASE("no db is NotFound", "[verify]") {
  testutil::TempDir tmp;
  auto env = nutchfs::NewLocalEnv();
  VerifyOptions options;
  options.tmp_env = env.get();
  options.tmp_dir = tmp.File("scratch");
  auto summary = VerifyDb(*env, tmp.File("none"), options);
  REQUIRE_FALSE(summary.has_value());
  CHECK(summary.error().IsNotFound());
}

// Regression (UBSan, scripts/sanitize.sh): options without a scratch Env were
// dereferenced as a null reference by the cross-table sorts.
TEST_CASE("verify without a scratch Env is refused, not undefined", "[verify]") {
  TestDb db;
  VerifyOptions options;
  auto summary = VerifyDb(*db.env, db.dir, options);
  REQUIRE_FALSE(summary.has_value());
  CHECK(summary.error().IsInvalidArgument());
  CHECK_THAT(summary.error().message(), Catch::Contains("no Env for the sorts' scratch files"));
}

TEST_CASE("damaged files are reported with file and offset", "[verify][fault]") {
  TestDb db;
  const std::string path = db.Path(TableId::kLinksByMd5);
  std::vector<std::string> findings;
  SECTION("flipped byte in a data block") {
    testutil::FlipByte(path, 3);
    findings = db.Verify();
    CHECK(Reported(findings, {path, "file CRC32C"}));
    CHECK(Reported(findings, {path, "at offset 0"}));
  }
  SECTION("flipped byte in the footer") {
    testutil::FlipByte(path, db.Current().table(TableId::kLinksByMd5).front().size - 10);
    findings = db.Verify();
    CHECK(Reported(findings, {path, "footer"}));
  }
  SECTION("truncated file") {
    testutil::TruncateFile(path, 20);
    findings = db.Verify();
    CHECK(Reported(findings, {path, "size 20 bytes"}));
    CHECK(Reported(findings, {path, "too short"}));
  }
  SECTION("a table of other content but the same size in its place") {
    Rows rows = db.Read(TableId::kLinksByMd5);
    rows[0].second[0] ^= 1;
    auto builder = TableBuilder::Create(*db.env, path + ".other");
    REQUIRE(builder.has_value());
    for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
    REQUIRE((*builder)->Finish().ok());
    REQUIRE((*builder)->file_size() == db.Current().table(TableId::kLinksByMd5).front().size);
    REQUIRE(db.env->RenameFile(path + ".other", path).ok());
    findings = db.Verify();
    CHECK(Reported(findings, {path, "file id", "another table file is in its place"}));
    CHECK(Reported(findings, {path, "file CRC32C"}));
  }
  SECTION("missing file") {
    REQUIRE(db.env->RemoveFile(path).ok());
    findings = db.Verify();
    CHECK(Reported(findings, {path, "missing: named by MANIFEST-"}));
  }
  SECTION("left-over file") {
    REQUIRE(nutchfs::WriteFileAtomically(*db.env, db.dir + "/pagesByURL-000099.tbl", "x").ok());
    findings = db.Verify();
    CHECK(Reported(findings, {"pagesByURL-000099.tbl", "left over"}));
  }
  SECTION("left-over temporary file of a write-then-rename; a hidden one is invisible") {
    REQUIRE(nutchfs::WriteFileAtomically(*db.env, db.dir + "/CURRENT.tmp.12.3", "x").ok());
    REQUIRE(nutchfs::WriteFileAtomically(*db.env, db.dir + "/.tmp.LOCK.host.12.ab", "x").ok());
    findings = db.Verify();
    CHECK(Reported(findings, {"CURRENT.tmp.12.3", "temporary file"}));
    CHECK(findings.size() == 1);
  }
  SECTION("left-over files are not reported while a writer holds LOCK") {
    REQUIRE(nutchfs::WriteFileAtomically(*db.env, db.dir + "/pagesByURL-000099.tbl", "x").ok());
    REQUIRE(nutchfs::WriteFileAtomically(*db.env, db.dir + "/LOCK", "pid 1").ok());
    VerifySummary summary;
    findings = db.Verify(&summary);
    CHECK(summary.writer_running);
    CHECK(findings.empty());
  }
  SECTION("malformed CURRENT") {
    REQUIRE(nutchfs::WriteFileAtomically(*db.env, db.dir + "/CURRENT", "garbage").ok());
    findings = db.Verify();
    CHECK(Reported(findings, {"CURRENT", "malformed"}));
  }
  SECTION("manifest checksum") {
    std::string manifest = db.dir + "/" + ManifestFileName(db.Current().version);
    testutil::FlipByte(manifest, 20);
    findings = db.Verify();
    CHECK(Reported(findings, {manifest, "checksum"}));
  }
  SECTION("CURRENT names a manifest that is missing") {
    const std::string manifest = db.dir + "/" + ManifestFileName(db.Current().version);
    REQUIRE(db.env->RemoveFile(manifest).ok());
    findings = db.Verify();
    CHECK(Reported(findings, {"CURRENT", manifest, "no such file"}));
  }
  SECTION("a left-over manifest file") {
    Manifest m = db.Current();
    m.version += 5;
    REQUIRE(WriteManifest(*db.env, db.dir, m).ok());
    findings = db.Verify();
    CHECK(Reported(findings, {ManifestFileName(m.version), "left over"}));
  }
  SECTION("manifest record count differs from the footer") {
    Manifest m = db.Current();
    m.base_entries(TableId::kLinksByMd5).front().records = 7;
    REQUIRE(InstallManifest(*db.env, db.dir, m).ok());
    findings = db.Verify();
    CHECK(Reported(findings, {path, "footer counts 3 records", "says 7"}));
  }
  INFO(Joined(findings));
}

// Rewrites the first data block of a table with bytes[pos] = byte and a valid trailer,
// then the manifest's size and CRC, so only the row checks can notice.
void RewriteFirstBlock(TestDb& db, TableId t, size_t pos, char byte) {
  Rows rows = db.Read(t);
  db.Replace(t, rows);
  std::string path = db.Path(t);
  auto bytes = nutchfs::ReadFileToString(*db.env, path);
  REQUIRE(bytes.has_value());
  std::string file = *bytes;
  uint64_t index_offset = DecodeFixed64(file.data() + file.size() - kFooterSize);
  std::string block = file.substr(0, index_offset - kBlockTrailerSize);
  block[pos] = byte;
  std::string rewritten = block;
  AppendBlockTrailer(block, &rewritten);
  rewritten += file.substr(index_offset);
  REQUIRE(nutchfs::WriteFileAtomically(*db.env, path, rewritten).ok());
  Manifest m = db.Current();
  m.base_entries(t).front().crc = crc32c::Value(rewritten);
  REQUIRE(InstallManifest(*db.env, db.dir, m).ok());
}

// Rewrites table t with index entry `entry`'s last key changed to `key` (same length),
// with valid checksums, footer and manifest entry, so only the check of the index against
// the blocks can notice.
void RewriteIndexKey(TestDb& db, TableId t, const std::string& old_key, const std::string& key) {
  REQUIRE(old_key.size() == key.size());
  const std::string path = db.Path(t);
  auto bytes = nutchfs::ReadFileToString(*db.env, path);
  REQUIRE(bytes.has_value());
  const std::string& file = *bytes;
  const size_t footer_at = file.size() - kFooterSize;
  Footer footer;
  footer.index.offset = DecodeFixed64(file.data() + footer_at);
  footer.index.size = DecodeFixed64(file.data() + footer_at + 8);
  footer.num_records = DecodeFixed64(file.data() + footer_at + 16);
  footer.num_blocks = DecodeFixed64(file.data() + footer_at + 24);
  std::string index = file.substr(footer.index.offset, footer.index.size);
  const size_t at = index.find(old_key);
  REQUIRE(at != std::string::npos);
  index.replace(at, key.size(), key);
  std::string rewritten = file.substr(0, footer.index.offset) + index;
  AppendBlockTrailer(index, &rewritten);
  footer.file_id = TableFileId(crc32c::Value(rewritten), crc32c::Value(index));
  EncodeFooter(footer, &rewritten);
  REQUIRE(rewritten.size() == file.size());
  REQUIRE(nutchfs::WriteFileAtomically(*db.env, path, rewritten).ok());
  Manifest m = db.Current();
  m.base_entries(t).front().crc = crc32c::Value(rewritten);
  m.base_entries(t).front().id = footer.file_id;
  REQUIRE(InstallManifest(*db.env, db.dir, m).ok());
}

TEST_CASE("a sparse index that disagrees with its blocks is reported", "[verify][fault]") {
  TestDb db;
  // pagesByURL is one block of http://a/, http://b/, http://c/: its index names c last.
  RewriteIndexKey(db, TableId::kPagesByUrl, "http://c/", "http://d/");
  auto findings = db.Verify();
  INFO(Joined(findings));
  CHECK(Reported(findings, {db.Path(TableId::kPagesByUrl), "last key differs from the index"}));
}

TEST_CASE("numPages that differs from the page tables is reported", "[verify][fault]") {
  TestDb db;
  Rows rows = db.Read(TableId::kPagesByUrl);
  rows.pop_back();
  db.Replace(TableId::kPagesByUrl, rows);  // the manifest now counts 2 pages
  auto findings = db.Verify();
  INFO(Joined(findings));
  CHECK(Reported(findings, {"pagesByMD5", "numPages is 2 but the table has 3 rows"}));
}

TEST_CASE("verify checks a kept older version with options.version", "[verify]") {
  TestDb db;
  const Manifest first = db.Current();
  REQUIRE(testutil::RunSession(*db.env, db.dir,
                               {testutil::AddPageCall(MakePage("http://d/", "D", 0))})
              .ok());
  VerifySummary summary;
  VerifyOptions options;
  options.tmp_env = db.env.get();
  options.tmp_dir = db.tmp.File("scratch");
  options.version = first.version;
  std::vector<std::string> findings;
  options.on_finding = [&](const Finding& f) { findings.push_back(f.ToString()); };
  auto result = VerifyDb(*db.env, db.dir, options);
  REQUIRE(result.has_value());
  CHECK(result->clean());
  CHECK(result->version == first.version);
  CHECK(result->pages == 3);
  SECTION("damage in the older version is found") {
    testutil::FlipByte(db.dir + "/" + first.table(TableId::kPagesByMd5).front().name, 3);
    result = VerifyDb(*db.env, db.dir, options);
    REQUIRE(result.has_value());
    CHECK_FALSE(result->clean());
    CHECK(Reported(findings, {first.table(TableId::kPagesByMd5).front().name, "file CRC32C"}));
  }
  SECTION("a version that is not kept is NotFound") {
    options.version = first.version + 7;
    result = VerifyDb(*db.env, db.dir, options);
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().IsNotFound());
    CHECK_THAT(result.error().message(), Catch::Contains("not kept"));
  }
}

TEST_CASE("verify reads the table files of every kept version, and says which", "[verify]") {
  TestDb db;
  const Manifest first = db.Current();
  REQUIRE(testutil::RunSession(*db.env, db.dir,
                               {testutil::AddPageCall(MakePage("http://d/", "D", 0))})
              .ok());
  const Manifest second = db.Current();
  VerifySummary summary;
  CHECK(db.Verify(&summary).empty());
  CHECK(summary.version == second.version);
  CHECK(summary.versions_checked == std::vector<uint64_t>{second.version, first.version});
  // pagesByMD5 of the first version, which the current one does not name.
  const std::string only_first = first.table(TableId::kPagesByMd5).front().name;
  REQUIRE_FALSE(second.NamesTableFile(only_first));
  SECTION("a damaged block") {
    testutil::FlipByte(db.dir + "/" + only_first, 3);
    CHECK(Reported(db.Verify(), {only_first, "file CRC32C"}));
  }
  SECTION("a damaged kept manifest") {
    testutil::FlipByte(db.dir + "/" + ManifestFileName(first.version), 20);
    const std::vector<std::string> findings = db.Verify(&summary);
    INFO(Joined(findings));
    CHECK(Reported(findings, {ManifestFileName(first.version), "checksum mismatch",
                              "webdb drop-version"}));
    CHECK(summary.versions_checked == std::vector<uint64_t>{second.version});
  }
}

TEST_CASE("rows out of order or undecodable are reported with their key", "[verify][fault]") {
  TestDb db;
  std::vector<std::string> findings;
  SECTION("a key equal to the one before") {
    // pagesByURL: record 0 is 3 varints + "http://a/" + 38 value bytes = 50 bytes; record
    // 1 shares "http://" and its delta starts at 53: "b/" becomes "a/".
    RewriteFirstBlock(db, TableId::kPagesByUrl, 53, 'a');
    findings = db.Verify();
    CHECK(Reported(findings, {db.Path(TableId::kPagesByUrl), "offset"}));
  }
  SECTION("a value that does not decode") {
    // record 0's value length (38) at offset 2 becomes 37: the value is one byte short.
    RewriteFirstBlock(db, TableId::kPagesByUrl, 2, 37);
    findings = db.Verify();
    CHECK(Reported(findings, {db.Path(TableId::kPagesByUrl)}));
    CHECK_FALSE(findings.empty());
  }
  INFO(Joined(findings));
}

TEST_CASE("broken invariants between tables are reported with their key", "[verify][fault]") {
  TestDb db;
  std::vector<std::string> findings;
  SECTION("a page missing from pagesByMD5") {
    Rows rows = db.Read(TableId::kPagesByMd5);
    rows.pop_back();
    db.Replace(TableId::kPagesByMd5, rows);
    findings = db.Verify();
    CHECK(Reported(findings, {"pagesByURL", "record missing from pagesByMD5"}));
  }
  SECTION("a page that differs between the page tables") {
    Rows rows = db.Read(TableId::kPagesByMd5);
    rows[0].second[0] ^= 1;
    db.Replace(TableId::kPagesByMd5, rows);
    findings = db.Verify();
    CHECK(Reported(findings, {"pagesByURL", "record differs in pagesByMD5"}));
  }
  SECTION("a page missing from pagesByURL") {
    Rows rows = db.Read(TableId::kPagesByUrl);
    rows.pop_back();
    db.Replace(TableId::kPagesByUrl, rows);
    findings = db.Verify();
    CHECK(Reported(findings, {"pagesByMD5", "record missing from pagesByURL", "key"}));
    CHECK(Reported(findings, {"http://c/", "no page at the link's url"}));
  }
  SECTION("a link only in linksByURL") {
    Rows rows = db.Read(TableId::kLinksByUrl);
    Link extra = MakeLink("B", "http://b/");
    std::string value;
    EncodeLinkValue(extra, &value);
    rows.emplace_back(LinkUrlKey(extra.url, extra.from), value);
    std::sort(rows.begin(), rows.end());
    db.Replace(TableId::kLinksByUrl, rows);
    findings = db.Verify();
    CHECK(Reported(findings, {"linksByURL", "record missing from linksByMD5", "http://b/"}));
    CHECK(Reported(findings, {"linksByMD5", "numLinks is 4 but the table has 3 rows"}));
  }
  SECTION("a link whose from has no page and whose target has no page") {
    Link stray = MakeLink("nothing", "http://nowhere/");
    std::string value;
    EncodeLinkValue(stray, &value);
    Rows by_md5 = db.Read(TableId::kLinksByMd5), by_url = db.Read(TableId::kLinksByUrl);
    by_md5.emplace_back(LinkMd5Key(stray.from, stray.url), value);
    by_url.emplace_back(LinkUrlKey(stray.url, stray.from), value);
    std::sort(by_md5.begin(), by_md5.end());
    std::sort(by_url.begin(), by_url.end());
    db.Replace(TableId::kLinksByMd5, by_md5);
    db.Replace(TableId::kLinksByUrl, by_url);
    findings = db.Verify();
    CHECK(Reported(findings, {"linksByMD5", Md5Hex(stray.from), "source rule"}));
    CHECK(Reported(findings, {"linksByURL", "http://nowhere/", "target rule"}));
  }
  SECTION("a wrong targetHasOutlink") {
    Rows by_md5 = db.Read(TableId::kLinksByMd5), by_url = db.Read(TableId::kLinksByUrl);
    for (auto& row : by_md5) row.second.back() ^= 1;
    for (auto& row : by_url) row.second.back() ^= 1;
    db.Replace(TableId::kLinksByMd5, by_md5);
    db.Replace(TableId::kLinksByUrl, by_url);
    findings = db.Verify();
    CHECK(Reported(findings, {"linksByURL", "http://a/", "targetHasOutlink is false", "2 outlinks"}));
    CHECK(Reported(findings, {"linksByURL", "http://b/", "targetHasOutlink is true", "0 outlinks"}));
  }
  INFO(Joined(findings));
}

TEST_CASE("verify reports its progress as it reads each table file and cross-checks", "[verify]") {
  testutil::TempDir tmp;
  auto env = nutchfs::NewLocalEnv();
  const std::string dir = tmp.File("db");
  REQUIRE(Writer::Create(*env, dir).ok());
  testutil::Session s;
  for (int i = 0; i < 5000; ++i) {
    s.push_back(testutil::AddPageCall(MakePage("http://p/" + std::to_string(i), "C", 1)));
  }
  REQUIRE(testutil::RunSession(*env, dir, s, {}).ok());
  std::map<std::string, std::pair<uint64_t, uint64_t>> last;  // by step: done, total
  VerifyOptions options;
  options.tmp_env = env.get();
  options.tmp_dir = tmp.File("scratch");
  options.progress = [&](const Progress& p) { last[std::string(p.step)] = {p.done, p.total}; };
  auto summary = VerifyDb(*env, dir, options);
  REQUIRE(summary.has_value());
  CHECK(summary->clean());
  const auto manifest = ReadCurrentManifest(*env, dir);
  REQUIRE(manifest.has_value());
  for (TableId t : {TableId::kPagesByUrl, TableId::kPagesByMd5}) {
    const std::string file = manifest->table(t).front().name;
    CHECK(last["verify " + file] == std::pair<uint64_t, uint64_t>{4096, 5000});
    CHECK(last[std::string("cross-check ") + TableName(t)] ==
          std::pair<uint64_t, uint64_t>{4096, 5000});
  }
}

}  // namespace
}  // namespace webdb

namespace webdb {
namespace {

std::string Stored(RunTag tag, std::string_view value) {
  std::string out;
  EncodeRunValue(tag, value, &out);
  return out;
}

// docs/DESIGN.md, "Layered tables" and "Verify": each run file, and its rows' tags against
// the layers below and its manifest line.
TEST_CASE("verify checks each run and the layers against each other", "[verify][layered]") {
  TestDb db;
  const TableId t = TableId::kPagesByUrl;
  const Rows pages = db.Read(t);  // http://a/, http://b/, http://c/
  REQUIRE(pages.size() == 3);
  const std::string& key = pages[1].first;
  const std::string run_name = TableFileName(t, db.Current().version, "-run0");

  SECTION("a sound run: its rows merged, no finding") {
    db.AddRun(t, {{key, Stored(RunTag::kReplace, pages[1].second)}}, 0, 0);
    VerifySummary summary;
    CHECK(db.Verify(&summary).empty());
    // The current version's four tables and its run, and the kept version 1's four.
    CHECK(summary.files == 2 * kNumTables + 1);
    CHECK(summary.versions_checked == std::vector<uint64_t>{2, 1});
    CHECK(summary.pages == 3);
  }
  SECTION("an insert where the base holds the key") {
    db.AddRun(t, {{key, Stored(RunTag::kInsert, pages[1].second)}}, 1, 0);
    const auto findings = db.Verify();
    CHECK(Reported(findings, {run_name, "an insert where a layer below holds the key"}));
  }
  SECTION("a remove where no layer holds the key") {
    db.AddRun(t, {{"http://zz/", Stored(RunTag::kRemove, "")}}, 0, 1);
    const auto findings = db.Verify();
    CHECK(Reported(findings, {run_name, "a replace or remove where no layer below holds"}));
  }
  SECTION("a run counting other inserts and removes than its manifest line") {
    db.AddRun(t, {{key, Stored(RunTag::kReplace, pages[1].second)}}, 1, 0);
    const auto findings = db.Verify();
    CHECK(Reported(findings, {run_name, "0 inserts and 0 removes", "says 1 and 0"}));
  }
  SECTION("an unknown tag") {
    db.AddRun(t, {{key, std::string("\7") + pages[1].second}}, 0, 0);
    const auto findings = db.Verify();
    CHECK(Reported(findings, {run_name, "malformed run row"}));
  }
  SECTION("a run removing a page the other tables still name") {
    db.AddRun(t, {{key, Stored(RunTag::kRemove, "")}}, 0, 1);
    const auto findings = db.Verify();
    INFO(Joined(findings));
    CHECK_FALSE(findings.empty());
    CHECK(db.Current().records(t) == 2);
  }
}

}  // namespace
}  // namespace webdb
