#include "crawl/warc_reader.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"

namespace crawl {
namespace {

using testutil::Gzip;
using testutil::HtmlResponseRecord;
using testutil::WarcRecordText;
using testutil::WriteFile;

std::vector<std::string> SmallRecords() {
  return {
      WarcRecordText("warcinfo", "", "software: test\r\n"),
      WarcRecordText("request", "http://a.example/", "GET / HTTP/1.1\r\n\r\n"),
      HtmlResponseRecord("http://a.example/", "<a href=b>b</a>"),
      WarcRecordText("metadata", "<http://a.example/>", "x", "2026-01-02T03:04:05.5Z",
                     "WARC/1.1"),
  };
}

std::string Concat(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += p;
  return out;
}

Result<std::vector<WarcRecord>> ReadAll(const std::string& path) {
  auto env = nutchfs::NewLocalEnv();
  NUTCHFS_ASSIGN_OR_RETURN(auto reader, WarcReader::Open(*env, path));
  std::vector<WarcRecord> records;
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(auto record, reader->Next());
    if (!record) return records;
    records.push_back(std::move(*record));
  }
}

void CheckSmall(const std::vector<WarcRecord>& records) {
  REQUIRE(records.size() == 4);
  CHECK(records[0].type() == "warcinfo");
  CHECK(records[0].block == "software: test\r\n");
  CHECK(records[1].type() == "request");
  CHECK(records[2].type() == "response");
  CHECK(records[2].target_uri() == "http://a.example/");
  CHECK(records[2].block.find("<a href=b>b</a>") != std::string::npos);
  CHECK(records[3].version == "WARC/1.1");
  CHECK(records[3].target_uri() == "http://a.example/");
  CHECK(records[3].Header("warc-date") == "2026-01-02T03:04:05.5Z");
}

TEST_CASE("plain, gzip per record and whole-file gzip read the same records", "[warc]") {
  testutil::TempDir dir;
  auto records = SmallRecords();
  WriteFile(dir.File("plain.warc"), Concat(records));
  std::string members;
  for (const auto& r : records) members += Gzip(r);
  WriteFile(dir.File("members.warc.gz"), members);
  WriteFile(dir.File("whole.warc.gz"), Gzip(Concat(records)));
  for (const char* name : {"plain.warc", "members.warc.gz", "whole.warc.gz"}) {
    INFO(name);
    auto got = ReadAll(dir.File(name));
    REQUIRE(got);
    CheckSmall(*got);
    CHECK((*got)[2].offset == records[0].size() + records[1].size());
  }
}

TEST_CASE("records split across read buffers", "[warc]") {
  testutil::TempDir dir;
  std::vector<std::string> records;
  std::string big;
  for (int i = 0; i < 300000; ++i) big.push_back(static_cast<char>('a' + i % 26));
  for (int i = 0; i < 40; ++i) {
    // sizes around the 64 KiB read chunk so that headers and blocks straddle it
    records.push_back(HtmlResponseRecord("http://a.example/" + std::to_string(i),
                                         big.substr(0, 1000 + i * 7919 % 150000)));
  }
  std::string members;
  for (const auto& r : records) members += Gzip(r);
  WriteFile(dir.File("plain.warc"), Concat(records));
  WriteFile(dir.File("members.warc.gz"), members);
  for (const char* name : {"plain.warc", "members.warc.gz"}) {
    auto got = ReadAll(dir.File(name));
    REQUIRE(got);
    REQUIRE(got->size() == records.size());
    uint64_t offset = 0;
    for (size_t i = 0; i < records.size(); ++i) {
      CHECK((*got)[i].target_uri() == "http://a.example/" + std::to_string(i));
      CHECK((*got)[i].offset == offset);
      offset += records[i].size();
    }
  }
}

// Truncating the file at every byte offset either ends cleanly on a record (or gzip
// member) boundary with the records before it, or fails naming file and offset.
void CheckEveryTruncation(const std::string& full, const std::vector<size_t>& boundaries,
                          const std::string& path) {
  for (size_t cut = 0; cut < full.size(); ++cut) {
    WriteFile(path, std::string_view(full).substr(0, cut));
    auto got = ReadAll(path);
    size_t whole = 0;
    bool on_boundary = false;
    for (size_t b : boundaries) {
      if (b <= cut) ++whole;
      if (b == cut) on_boundary = true;
    }
    INFO("cut at " << cut);
    if (on_boundary || cut == 0) {
      REQUIRE(got);
      CHECK(got->size() == whole);
    } else {
      REQUIRE_FALSE(got);
      CHECK(got.error().IsCorruption());
      CHECK(got.error().message().rfind(path + ": ", 0) == 0);
      CHECK(got.error().message().find("offset") != std::string::npos);
    }
  }
}

TEST_CASE("a truncated file fails at every byte offset except record boundaries", "[warc]") {
  testutil::TempDir dir;
  auto records = SmallRecords();
  std::vector<size_t> plain_ends, gzip_ends;
  std::string plain, members;
  for (const auto& r : records) {
    plain += r;
    members += Gzip(r);
    plain_ends.push_back(plain.size());
    gzip_ends.push_back(members.size());
  }
  CheckEveryTruncation(plain, plain_ends, dir.File("t.warc"));
  CheckEveryTruncation(members, gzip_ends, dir.File("t.warc.gz"));
  std::string whole = Gzip(plain);
  CheckEveryTruncation(whole, {whole.size()}, dir.File("w.warc.gz"));
}

TEST_CASE("the error names the record offset and the gzip member", "[warc]") {
  testutil::TempDir dir;
  auto records = SmallRecords();
  std::string members = Gzip(records[0]) + Gzip(records[1]);
  size_t second = Gzip(records[0]).size();
  std::string bad = Gzip("WARC/1.0\r\nContent-Length: x\r\n\r\n\r\n\r\n");
  WriteFile(dir.File("b.warc.gz"), members + bad);
  auto got = ReadAll(dir.File("b.warc.gz"));
  REQUIRE_FALSE(got);
  size_t offset = records[0].size() + records[1].size();
  CHECK(got.error().message() ==
        dir.File("b.warc.gz") + ": record at offset " + std::to_string(offset) +
            " (gzip member at file offset " + std::to_string(second + Gzip(records[1]).size()) +
            "): missing or bad Content-Length 'x'");
}

// Regression (warc_fuzz): a damaged gzip member after a good record was reported as
// "FILE: gzip member at file offset M: ...", without the record offset every other
// framing error names.
TEST_CASE("a damaged gzip member names the record it breaks", "[warc]") {
  const std::string path = PROJECT_SOURCE_DIR "/test/crawl/fuzz/warc-gzip-error-06ae4f55.warc.gz";
  auto got = ReadAll(path);
  REQUIRE_FALSE(got);
  CHECK(got.error().IsCorruption());
  CHECK(got.error().message() == path +
                                     ": record at offset 241 (gzip member at file offset 207): "
                                     "gzip member at file offset 207: invalid distance too far "
                                     "back");
}

TEST_CASE("corrupt bytes at every offset never pass unnoticed in gzip", "[warc]") {
  testutil::TempDir dir;
  auto records = SmallRecords();
  std::string members;
  for (const auto& r : records) members += Gzip(r);
  std::string plain = Concat(records);
  for (size_t at = 0; at < members.size(); ++at) {
    std::string bad = members;
    bad[at] = static_cast<char>(bad[at] ^ 0x5a);
    WriteFile(dir.File("c.warc.gz"), bad);
    auto got = ReadAll(dir.File("c.warc.gz"));
    INFO("flip at " << at);
    if (got) {  // only bytes zlib does not check (gzip header mtime, OS) may flip unseen
      REQUIRE(got->size() == records.size());
      for (size_t i = 0; i < records.size(); ++i) {
        CHECK(records[i].find((*got)[i].block) != std::string::npos);
      }
    } else {
      CHECK(got.error().IsCorruption());
      CHECK(got.error().message().rfind(dir.File("c.warc.gz") + ": ", 0) == 0);
    }
  }
}

TEST_CASE("framing errors", "[warc]") {
  testutil::TempDir dir;
  auto check = [&](const std::string& text, const std::string& reason) {
    WriteFile(dir.File("f.warc"), text);
    auto got = ReadAll(dir.File("f.warc"));
    REQUIRE_FALSE(got);
    CHECK(got.error().message().find(reason) != std::string::npos);
  };
  check("HTTP/1.1 200 OK\r\n\r\n", "not a WARC/1.0 or WARC/1.1 record");
  check("WARC/1.0\r\nWARC-Type: x\r\n\r\n", "missing or bad Content-Length");
  check("WARC/1.0\r\nContent-Length: 2\r\n\r\nabcd\r\n\r\n", "not followed by CRLF CRLF");
  check("WARC/1.0\r\nno colon\r\nContent-Length: 0\r\n\r\n\r\n\r\n", "malformed header line");
}

TEST_CASE("WARC dates", "[warc]") {
  CHECK(ParseWarcDate("1970-01-01T00:00:00Z") == 0);
  CHECK(ParseWarcDate("2026-01-02T03:04:05Z") == int64_t{1767323045} * 1000);
  CHECK(ParseWarcDate("2026-01-02T03:04:05.25Z") == int64_t{1767323045} * 1000 + 250);
  CHECK(ParseWarcDate("2026-01-02T03:04:05.123456Z") == int64_t{1767323045} * 1000 + 123);
  CHECK(ParseWarcDate("2026-01-02Z") == int64_t{1767312000} * 1000);
  CHECK(!ParseWarcDate("yesterday"));
  CHECK(!ParseWarcDate("2026-01-02 03:04:05Z"));
  CHECK(!ParseWarcDate(""));
  // Every field is digits: from_chars alone also took a sign ("-999" as a year).
  CHECK(!ParseWarcDate("-999-01-01T00:00:00Z"));
  CHECK(!ParseWarcDate("2026--1-02Z"));
  CHECK(!ParseWarcDate("2026-01-02T03:-4:05Z"));
}

// Issue 36, item 11: 2024-13-45T99:99:99Z was read as a date in 2025 (timegm carries).
TEST_CASE("a WARC date out of range is not a date", "[warc]") {
  for (const char* date : {"2024-13-45T99:99:99Z", "2024-00-10Z", "2024-13Z", "2024-01-00Z",
                           "2024-01-32Z", "2023-02-29Z", "2024-02-30Z", "2100-02-29Z",
                           "2024-04-31Z", "2024-01-01T24:00:00Z", "2024-01-01T23:60:00Z",
                           "2024-01-01T23:59:60Z"}) {
    INFO(date);
    CHECK_FALSE(ParseWarcDate(date));
  }
  CHECK(ParseWarcDate("2024-02-29Z") == int64_t{1709164800} * 1000);
  CHECK(ParseWarcDate("2000-02-29T23:59:59Z") == int64_t{951868799} * 1000);
  CHECK(ParseWarcDate("2024-12-31T23:59:59Z") == int64_t{1735689599} * 1000);
}

}  // namespace
}  // namespace crawl
