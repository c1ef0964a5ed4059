#include "webdb/inspect/table_check.h"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>

#include "webdb/table/layered_table.h"
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

// The inserts and removes of a run, as its rows are read.
struct RunTags {
  uint64_t inserts = 0;
  uint64_t removes = 0;
};

// A run row's value without its tag, counted into *tags; nullopt for a remove. Corruption
// for a malformed one.
Result<std::optional<std::string_view>> RunValue(std::string_view stored, RunTags* tags) {
  const std::optional<RunRow> row = DecodeRunValue(stored);
  if (!row) {
    return Err(Status::Corruption("malformed run row: unknown tag or a remove with a value"));
  }
  if (row->tag == RunTag::kInsert) ++tags->inserts;
  if (row->tag == RunTag::kRemove) ++tags->removes;
  if (row->tag == RunTag::kRemove) return std::optional<std::string_view>();
  return std::optional<std::string_view>(row->value);
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
  RunTags tags;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view key = it->key();
    if (n > 0 && key <= std::string_view(previous)) {
      log.Add({check.ref.path, DescribeKey(check.table, key),
               "key not greater than the one before"});
    }
    Status s;
    if (!check.run) {
      s = DecodeRow(check.table, key, it->value());
    } else if (auto value = RunValue(it->value(), &tags); !value) {
      s = value.error();
    } else if (*value) {
      s = DecodeRow(check.table, key, **value);
    }
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
  if (!it->status().ok()) {
    log.AddStatus(check.ref.path, it->status());
  } else if (check.run && (tags.inserts != check.run->inserts ||
                           tags.removes != check.run->removes)) {
    log.Add({check.ref.path, "",
             fmt::format("{} inserts and {} removes, {} says {} and {}", tags.inserts,
                         tags.removes, check.ref.manifest, check.run->inserts,
                         check.run->removes)});
  }
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

std::unique_ptr<LayeredTable> OpenTableForChecks(nutchfs::Env& env, const std::string& dir,
                                                 const Manifest& m, TableId t) {
  auto open = [&env](const std::vector<TableRef>& refs) -> std::unique_ptr<Table> {
    std::vector<std::unique_ptr<nutchfs::RandomAccessFile>> files;
    for (const TableRef& ref : refs) {
      auto file = env.NewRandomAccessFile(ref.path);
      if (!file) return nullptr;
      files.push_back(std::move(*file));
    }
    auto table = Table::Open(std::move(files));
    return table ? std::move(*table) : nullptr;
  };
  auto base = open(TableRefsOf(dir, m, t, {}));
  if (!base) return nullptr;
  std::vector<std::unique_ptr<Table>> runs;
  for (const TableRef& ref : RunRefsOf(dir, m, t, {})) {
    runs.push_back(open({ref}));
    if (!runs.back()) return nullptr;
  }
  return std::make_unique<LayeredTable>(std::move(base), std::move(runs), m.records(t));
}

bool CheckTableLayers(nutchfs::Env& env, const std::string& dir, const Manifest& m, TableId t,
                      const std::string& manifest,
                      const std::function<bool(std::string_view key)>& in_range, FindingLog& log,
                      uint64_t* rows, uint64_t* files, std::set<std::string>* read) {
  bool sound = true;
  const std::vector<TableRef> parts = TableRefsOf(dir, m, t, manifest);
  if (read->insert(parts.front().path).second) {
    sound = CheckTableParts(env, parts, t, in_range, log, rows);
    *files += parts.size();
  }
  const std::vector<TableRef> runs = RunRefsOf(dir, m, t, manifest);
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!read->insert(runs[i].path).second) continue;
    sound = CheckTableFile(env, {runs[i], t, in_range, m.runs_of(t)[i]}, log, rows) && sound;
    ++*files;
  }
  return sound;
}

bool CheckTableParts(nutchfs::Env& env, const std::vector<TableRef>& parts, TableId table,
                     const std::function<bool(std::string_view key)>& in_range, FindingLog& log,
                     uint64_t* rows) {
  std::optional<std::string> previous;
  bool sound = true;
  for (const TableRef& ref : parts) {
    sound = CheckPart(env, {ref, table, in_range, std::nullopt}, log, rows, &previous) && sound;
  }
  return sound;
}

}  // namespace webdb
