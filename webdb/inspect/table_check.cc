#include "webdb/inspect/table_check.h"

#include <memory>
#include <optional>
#include <string>

#include "webdb/table/table.h"

namespace webdb {
namespace {

// Checks the bytes of the file against the manifest entry. False if it cannot be read.
bool CheckWholeFile(nutchfs::Env& env, const TableCheck& check, FindingLog& log) {
  const TableRef& ref = check.ref;
  auto sum = SumFile(env, ref.path);
  if (!sum && sum.error().IsNotFound()) {
    log.Add({ref.path, "", "missing: named by " + ref.manifest});
    return false;
  }
  if (!sum) {
    log.AddStatus(ref.path, sum.error());
    return false;
  }
  for (const Status& s : {CheckTableSize(ref, sum->size), CheckTableCrc(ref, sum->crc)}) {
    if (!s.ok()) log.AddStatus(ref.path, s);
  }
  return true;
}

Status DecodeRow(TableId t, std::string_view key, std::string_view value) {
  if (t == TableId::kPagesByUrl || t == TableId::kPagesByMd5) {
    auto page = DecodePage(t, key, value);
    return page ? ValidatePage(*page) : page.error();
  }
  auto link = DecodeLink(t, key, value);
  return link ? ValidateLink(*link) : link.error();
}

// Reads every row; the Table iterator checks blocks, order and the record count. With
// *previous set (the last key of the part before), the first key must be above it; it is
// left holding the file's last key.
void ScanRows(const Table& table, const TableCheck& check, FindingLog& log, uint64_t* rows,
              std::optional<std::string>* previous_part) {
  auto it = table.NewIterator();
  RowProgress progress(log.progress(),
                       "verify " + check.ref.path.substr(check.ref.path.rfind('/') + 1),
                       check.ref.entry.records);
  std::string previous = previous_part->value_or("");
  uint64_t n = previous_part->has_value() ? 1 : 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view key = it->key();
    if (n > 0 && key <= std::string_view(previous)) {
      log.Add({check.ref.path, DescribeKey(check.table, key), "key not greater than the one before"});
    }
    Status s = DecodeRow(check.table, key, it->value());
    if (!s.ok()) {
      // The decoders name table and key; the finding names them already.
      const std::string where = DescribeKey(check.table, key);
      std::string what = s.message();
      const std::string named = std::string(TableName(check.table)) + " " + where + ": ";
      if (what.starts_with(named)) what.erase(0, named.size());
      log.Add({check.ref.path, where, std::move(what)});
    }
    if (check.in_range && !check.in_range(key)) {
      log.Add({check.ref.path, DescribeKey(check.table, key), "key outside this section's range"});
    }
    previous.assign(key);
    ++n;
    if (rows) ++*rows;
    progress.Row();
  }
  if (!it->status().ok()) log.AddStatus(check.ref.path, it->status());
  if (n > 0) *previous_part = std::move(previous);
}

bool CheckPart(nutchfs::Env& env, const TableCheck& check, FindingLog& log, uint64_t* rows,
               std::optional<std::string>* previous_part) {
  const uint64_t before = log.count();
  if (!CheckWholeFile(env, check, log)) return false;
  auto table = Table::Open(env, check.ref.path);
  if (!table) {
    log.AddStatus(check.ref.path, table.error());
    return false;
  }
  Status s = CheckTableFooter(check.ref, (*table)->footer(0));
  if (!s.ok()) log.AddStatus(check.ref.path, s);
  ScanRows(**table, check, log, rows, previous_part);
  return log.count() == before;
}

}  // namespace

bool CheckTableFile(nutchfs::Env& env, const TableCheck& check, FindingLog& log, uint64_t* rows) {
  std::optional<std::string> previous;
  return CheckPart(env, check, log, rows, &previous);
}

bool CheckTableParts(nutchfs::Env& env, const std::vector<TableRef>& parts, TableId table,
                     const std::function<bool(std::string_view key)>& in_range, FindingLog& log,
                     uint64_t* rows) {
  std::optional<std::string> previous;
  bool sound = true;
  for (const TableRef& ref : parts) {
    sound = CheckPart(env, {ref, table, in_range}, log, rows, &previous) && sound;
  }
  return sound;
}

}  // namespace webdb
