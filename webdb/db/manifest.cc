#include "webdb/db/manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <cinttypes>
#include <cmath>
#include <optional>
#include <sstream>

#include "webdb/table/table_builder.h"
#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

// Version 5 adds run lines, 4 the rank line, 3 lets a table have several part lines; 2 and
// 1 (no time, keep, rollback or file ids) are read as well. A manifest is written in the
// lowest version that holds its content, so that its readers need not be newer than it.
constexpr std::string_view kMagicLineV5 = "webdb-manifest 5\n";
constexpr std::string_view kMagicLineV4 = "webdb-manifest 4\n";
constexpr std::string_view kMagicLine = "webdb-manifest 3\n";
constexpr std::string_view kMagicLineV2 = "webdb-manifest 2\n";
constexpr std::string_view kMagicLineV1 = "webdb-manifest 1\n";

Status Bad(const std::string& path, int line, std::string_view why) {
  return Status::Corruption(fmt::format("{}:{}: {}", path, line, why));
}

}  // namespace

bool IsDbFileName(std::string_view name) {
  return name.starts_with("MANIFEST-") || name.ends_with(".tbl");
}

bool IsTemporaryFileName(std::string_view name) {
  return name.find(".tmp.") != std::string_view::npos;
}

std::string ManifestFileName(uint64_t version) { return fmt::format("MANIFEST-{:06d}", version); }

std::string TableFileName(TableId t, uint64_t version, std::string_view suffix) {
  return fmt::format("{}-{:06d}{}.tbl", TableName(t), version, suffix);
}

std::optional<uint64_t> TableFileVersion(std::string_view name) {
  const size_t dash = name.find('-');
  if (dash == std::string_view::npos || !name.ends_with(".tbl") ||
      !ParseTableName(name.substr(0, dash))) {
    return std::nullopt;
  }
  const char* begin = name.data() + dash + 1;
  const char* end = name.data() + name.size() - 4;
  uint64_t version = 0;
  auto [stop, ec] = std::from_chars(begin, end, version);
  if (ec != std::errc() || stop - begin < 6 || (stop != end && *stop != '-')) return std::nullopt;
  return version;
}

Status CheckTableFileName(std::string_view name) {
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of(std::string_view("/\0", 2)) != std::string_view::npos) {
    return Status::Corruption("table file name '" + std::string(name) +
                              "' is not a file name inside the db directory");
  }
  return Status::OK();
}

uint64_t Manifest::records(TableId t) const {
  uint64_t n = 0;
  for (const TableFile& f : table(t)) n += f.records;
  for (const RunFile& r : runs_of(t)) n += r.inserts - r.removes;
  return n;
}

uint64_t Manifest::bytes(TableId t) const {
  uint64_t n = 0;
  for (const TableFile& f : table(t)) n += f.size;
  for (const RunFile& r : runs_of(t)) n += r.file.size;
  return n;
}

uint64_t Manifest::run_records(TableId t) const {
  uint64_t n = 0;
  for (const RunFile& r : runs_of(t)) n += r.file.records;
  return n;
}

std::vector<const TableFile*> Manifest::Files() const {
  std::vector<const TableFile*> files;
  for (int i = 0; i < kNumTables; ++i) {
    for (const TableFile& f : tables[i]) files.push_back(&f);
    for (const RunFile& r : runs[i]) files.push_back(&r.file);
  }
  return files;
}

bool Manifest::NamesTableFile(std::string_view name) const {
  for (const TableFile* f : Files()) {
    if (f->name == name) return true;
  }
  return false;
}

std::string RankFields(const RankInfo& rank) {
  // Shortest decimal forms that read back to the same doubles.
  return fmt::format("{} {} {} {} {}", rank.options.iterations, rank.options.epsilon,
                     rank.options.damping, rank.done, rank.l1);
}

bool ParseRankFields(std::istream& fields, RankInfo* rank) {
  const RankOptions& o = rank->options;
  return (fields >> rank->options.iterations >> rank->options.epsilon >> rank->options.damping >>
          rank->done >> rank->l1) &&
         o.iterations >= 1 && std::isfinite(o.epsilon) && o.epsilon >= 0 && o.damping >= 0 &&
         o.damping < 1 && rank->done >= 1 && rank->done <= o.iterations &&
         std::isfinite(rank->l1) && rank->l1 >= 0;
}

std::string Manifest::Encode() const {
  const bool layered = std::any_of(runs.begin(), runs.end(),
                                   [](const TableRuns& r) { return !r.empty(); });
  std::string out(layered ? kMagicLineV5 : rank ? kMagicLineV4 : kMagicLine);
  out += fmt::format("version {}\ntime {}\nkeep {}\n", version, time_ms, keep);
  if (restores != 0) out += fmt::format("rollback {}\n", restores);
  if (rank) out += "rank " + RankFields(*rank) + "\n";
  for (int i = 0; i < kNumTables; ++i) {
    const char* name = TableName(static_cast<TableId>(i));
    for (const TableFile& f : tables[i]) {
      out += fmt::format("table {} {} {} {} {:08x} {:016x}\n", name, f.name, f.records, f.size,
                         f.crc, f.id);
    }
    for (const RunFile& r : runs[i]) {
      const TableFile& f = r.file;
      out += fmt::format("run {} {} {} {} {:08x} {:016x} {} {}\n", name, f.name, f.records,
                         f.size, f.crc, f.id, r.inserts, r.removes);
    }
  }
  out += fmt::format("crc {:08x}\n", crc32c::Value(out));
  return out;
}

namespace {

// Takes one line (not the magic or crc line) into m; the reason when it is not a valid
// line.
std::optional<std::string> ParseManifestLine(const std::string& line, int format, Manifest* m) {
  const bool v1 = format == 1;
  std::istringstream fields(line);
  std::string word;
  fields >> word;
  bool ok = false;
  if (word == "version") {
    ok = static_cast<bool>(fields >> m->version);
  } else if (word == "time" && !v1) {
    ok = static_cast<bool>(fields >> m->time_ms);
  } else if (word == "keep" && !v1) {
    ok = (fields >> m->keep) && m->keep >= 1 && m->keep <= kMaxKeep;
  } else if (word == "rollback" && !v1) {
    ok = (fields >> m->restores) && m->restores > 0;
  } else if (word == "rank" && format >= 4 && !m->rank) {
    ok = ParseRankFields(fields, &m->rank.emplace());
  } else if (word == "table" || (word == "run" && format >= 5)) {
    std::string table;
    RunFile r;
    TableFile& f = r.file;
    ok = (fields >> table >> f.name >> f.records >> f.size >> std::hex >> f.crc) &&
         (v1 || fields >> f.id) &&
         (word == "table" || fields >> std::dec >> r.inserts >> r.removes);
    if (!ok) return "malformed line '" + line + "'";
    auto id = ParseTableName(table);
    if (!id) return id.error().message();
    if (Status named = CheckTableFileName(f.name); !named.ok()) return named.message();
    if (format < 3 && !m->table(*id).empty()) return "table " + table + " named twice";
    if (m->NamesTableFile(f.name)) return "table file " + f.name + " named twice";
    const int i = static_cast<int>(*id);
    if (word == "table") {
      m->tables[i].push_back(f);
    } else if (r.inserts + r.removes > f.records || r.inserts + r.removes < r.inserts) {
      return "run " + f.name + " counts more inserts and removes than records";
    } else {
      m->runs[i].push_back(r);
    }
  }
  if (ok && (fields >> std::ws).eof()) return std::nullopt;
  return "malformed line '" + line + "'";
}

}  // namespace

Result<Manifest> Manifest::Decode(std::string_view text, const std::string& path) {
  size_t crc_pos = text.rfind("crc ");
  const int format = text.starts_with(kMagicLineV5)   ? 5
                     : text.starts_with(kMagicLineV4) ? 4
                     : text.starts_with(kMagicLine)   ? 3
                     : text.starts_with(kMagicLineV2) ? 2
                     : text.starts_with(kMagicLineV1) ? 1
                                                      : 0;
  if (format == 0 || crc_pos == std::string_view::npos ||
      text.back() != '\n') {
    return Err(Bad(path, 1, "not a complete webdb manifest"));
  }
  uint32_t stored = 0;
  if (std::sscanf(std::string(text.substr(crc_pos + 4)).c_str(), "%x", &stored) != 1 ||
      stored != crc32c::Value(text.substr(0, crc_pos))) {
    return Err(Bad(path, 0, "manifest checksum mismatch"));
  }
  Manifest m;
  std::istringstream in{std::string(text.substr(kMagicLine.size(), crc_pos - kMagicLine.size()))};
  std::string line;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (auto bad = ParseManifestLine(line, format, &m)) return Err(Bad(path, line_no, *bad));
  }
  const bool every_table = std::all_of(m.tables.begin(), m.tables.end(),
                                       [](const TableParts& parts) { return !parts.empty(); });
  if (!every_table || m.version == 0) {
    return Err(Bad(path, line_no, "manifest lacks a version or a table"));
  }
  return m;
}

Result<Manifest> CreateEmptyTables(nutchfs::Env& env, const std::string& dir) {
  NUTCHFS_RETURN_IF_ERROR(nutchfs::CreateDirsDurably(env, dir));
  Manifest m;
  m.version = 1;
  for (int i = 0; i < kNumTables; ++i) {
    TableFile& f = m.tables[i].emplace_back();
    f.name = TableFileName(static_cast<TableId>(i), m.version);
    NUTCHFS_ASSIGN_OR_RETURN(auto builder, TableBuilder::Create(env, dir + "/" + f.name));
    NUTCHFS_RETURN_IF_ERROR(builder->Finish());
    f.size = builder->file_size();
    f.crc = builder->file_crc();
    f.id = builder->file_id();
  }
  NUTCHFS_RETURN_IF_ERROR(env.SyncDir(dir));
  return m;
}

Result<uint64_t> ReadCurrentVersion(nutchfs::Env& env, const std::string& dir) {
  auto current = nutchfs::ReadFileToString(env, dir + "/CURRENT");
  if (!current) {
    if (current.error().IsNotFound()) return Err(Status::NotFound("no webdb at " + dir));
    return Err(current.error());
  }
  const std::string& name = *current;
  uint64_t version = 0;
  if (name.size() < 2 || name.back() != '\n' || !name.starts_with("MANIFEST-") ||
      std::sscanf(name.c_str() + 9, "%" SCNu64, &version) != 1 || version == 0 ||
      name != ManifestFileName(version) + "\n") {
    return Err(Status::Corruption(dir + "/CURRENT: malformed"));
  }
  return version;
}

Result<Manifest> ReadManifest(nutchfs::Env& env, const std::string& dir, uint64_t version) {
  const std::string path = dir + "/" + ManifestFileName(version);
  NUTCHFS_ASSIGN_OR_RETURN(std::string text, nutchfs::ReadFileToString(env, path));
  NUTCHFS_ASSIGN_OR_RETURN(Manifest m, Manifest::Decode(text, path));
  if (m.version != version) {
    return Err(Status::Corruption(
        fmt::format("{}: holds version {}, not {}", path, m.version, version)));
  }
  return m;
}

Result<Manifest> ReadCurrentManifest(nutchfs::Env& env, const std::string& dir) {
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t version, ReadCurrentVersion(env, dir));
  return ReadManifest(env, dir, version);
}

Status WriteManifest(nutchfs::Env& env, const std::string& dir, const Manifest& m) {
  return nutchfs::WriteFileAtomically(env, dir + "/" + ManifestFileName(m.version), m.Encode());
}

Status SetCurrent(nutchfs::Env& env, const std::string& dir, uint64_t version) {
  return nutchfs::WriteFileAtomically(env, dir + "/CURRENT", ManifestFileName(version) + "\n");
}

Status InstallManifest(nutchfs::Env& env, const std::string& dir, const Manifest& m) {
  NUTCHFS_RETURN_IF_ERROR(WriteManifest(env, dir, m));
  return SetCurrent(env, dir, m.version);
}

namespace {

Status RemoveFilesIf(nutchfs::Env& env, const std::string& dir,
                     const std::function<bool(const std::string&)>& obsolete) {
  NUTCHFS_ASSIGN_OR_RETURN(auto names, env.GetChildren(dir));
  for (const std::string& name : names) {
    if (!obsolete(name)) continue;
    Status s = env.RemoveFile(dir + "/" + name);
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  return Status::OK();
}

}  // namespace

Status RemoveObsoleteFiles(nutchfs::Env& env, const std::string& dir,
                           const std::vector<const Manifest*>& live) {
  return RemoveFilesIf(env, dir, [&](const std::string& name) {
    if (IsTemporaryFileName(name)) return true;
    if (!IsDbFileName(name)) return false;
    for (const Manifest* m : live) {
      if (name == ManifestFileName(m->version) || m->NamesTableFile(name)) return false;
    }
    return true;
  });
}

Status RemoveTemporaryFiles(nutchfs::Env& env, const std::string& dir) {
  return RemoveFilesIf(env, dir, [](const std::string& name) { return IsTemporaryFileName(name); });
}

}  // namespace webdb
