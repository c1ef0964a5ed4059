// Fuzzes opening and reading a table file (webdb/table/table.h, webdb/table/table_format.h) and
// verifying it (webdb/inspect/table_check.h), from bytes in an in-memory Env. Checksums are
// repaired first so that mutations reach the footer, index and block decoders.
// Properties: no crash; errors are Corruption naming the file; a full scan yields
// strictly increasing keys and, when clean, the footer's record count; Seek lands on
// every key scanned; rows that decode as a record encode back to the same key and
// value; webdb verify's check finds the file sound exactly when open, scan, count and
// every row's decoding succeed.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "webdb/inspect/table_check.h"
#include "webdb/table/record.h"
#include "webdb/table/table.h"
#include "webdb/util/crc32c.h"

namespace {

using webdb::TableId;

constexpr char kPath[] = "/db/table-000001.tbl";

// The row of the record that key and value decode to as table t, and whether that
// record is valid; nullopt if they do not decode.
std::optional<std::pair<std::string, std::string>> Reencode(TableId t, std::string_view key,
                                                            std::string_view value, bool* valid) {
  std::string k, v;
  if (t == TableId::kPagesByUrl || t == TableId::kPagesByMd5) {
    auto page = webdb::DecodePage(t, key, value);
    if (!page) return std::nullopt;
    *valid = webdb::ValidatePage(*page).ok();
    webdb::EncodePage(t, *page, &k, &v);
  } else {
    auto link = webdb::DecodeLink(t, key, value);
    if (!link) return std::nullopt;
    *valid = webdb::ValidateLink(*link).ok();
    webdb::EncodeLink(t, *link, &k, &v);
  }
  return std::make_pair(std::move(k), std::move(v));
}

// Checks that a row decoding as a record of table t has its key encoded back unchanged
// and a value that encodes to itself once canonical (varints may be written longer than
// needed); returns whether it decoded into a valid record.
bool RowRoundTrips(TableId t, std::string_view key, std::string_view value) {
  bool valid = false;
  auto once = Reencode(t, key, value, &valid);
  if (!once) return false;
  FUZZ_CHECK(once->first == key);
  bool again_valid = false;
  auto twice = Reencode(t, once->first, once->second, &again_valid);
  FUZZ_CHECK(twice.has_value() && *twice == *once && again_valid == valid);
  return valid;
}

struct Scan {
  std::vector<std::string> keys;
  bool clean = false;       // the iterator ended with status OK
  bool rows_decode = true;  // every row decodes as a record of the table
};

Scan ScanTable(const webdb::Table& table, TableId t) {
  Scan scan;
  auto it = table.NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!scan.keys.empty()) FUZZ_CHECK(scan.keys.back() < it->key());
    scan.keys.emplace_back(it->key());
    bool decodes = false;
    for (int other = 0; other < webdb::kNumTables; ++other) {
      const bool d = RowRoundTrips(static_cast<TableId>(other), it->key(), it->value());
      if (static_cast<TableId>(other) == t) decodes = d;
    }
    scan.rows_decode = scan.rows_decode && decodes;
  }
  scan.clean = it->status().ok();
  if (!scan.clean) {
    FUZZ_CHECK_MSG(it->status().IsCorruption(), it->status().ToString());
    FUZZ_CHECK_MSG(it->status().message().starts_with(kPath), it->status().ToString());
  }
  return scan;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(fuzzutil::AsView(data, size));
  fuzzutil::RepairTableChecksums(&bytes);
  auto env = fuzzutil::EnvWithFile(kPath, bytes);
  // Which table the rows are checked as: any, chosen by the input.
  const auto t = static_cast<TableId>(webdb::crc32c::Value(bytes) % webdb::kNumTables);

  auto table = webdb::Table::Open(*env, kPath);
  bool expect_sound = false;
  if (!table) {
    FUZZ_CHECK_MSG(table.error().IsCorruption(), table.error().ToString());
    FUZZ_CHECK_MSG(table.error().message().starts_with(kPath), table.error().ToString());
  } else {
    const Scan scan = ScanTable(**table, t);
    if (scan.clean) FUZZ_CHECK(scan.keys.size() == (*table)->num_records());
    expect_sound = scan.clean && scan.rows_decode;
    auto it = (*table)->NewIterator();
    for (size_t i = 0; i < scan.keys.size(); i += 1 + scan.keys.size() / 8) {
      it->Seek(scan.keys[i]);
      FUZZ_CHECK(!it->Valid() || it->key() >= scan.keys[i]);
      if (scan.clean) FUZZ_CHECK(it->Valid() && it->key() == scan.keys[i]);
    }
  }

  webdb::TableCheck check;
  check.ref.path = kPath;
  check.table = t;
  // File id 0: not recorded, so the footer's id is not compared (any id is sound).
  check.ref.entry = {"table-000001.tbl", table ? (*table)->num_records() : 0, bytes.size(),
                     webdb::crc32c::Value(bytes), 0};
  check.ref.manifest = "MANIFEST-000001";
  webdb::FindingLog log([](const webdb::Finding&) {});
  const bool sound = webdb::CheckTableFile(*env, check, log);
  FUZZ_CHECK(sound == (log.count() == 0));
  FUZZ_CHECK_MSG(sound == expect_sound,
                 sound ? "verify passes a bad table" : "verify fails a good table");
  return 0;
}
