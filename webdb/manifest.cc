#include "webdb/manifest.h"

#include <fmt/format.h>

#include <sstream>

#include "webdb/crc32c.h"
#include "webdb/table_builder.h"

namespace webdb {
namespace {

constexpr std::string_view kMagicLine = "webdb-manifest 1\n";

Status Bad(const std::string& path, int line, std::string_view why) {
  return Status::Corruption(fmt::format("{}:{}: {}", path, line, why));
}

}  // namespace

bool IsDbFileName(std::string_view name) {
  return name.starts_with("MANIFEST-") || name.ends_with(".tbl");
}

std::string ManifestFileName(uint64_t version) { return fmt::format("MANIFEST-{:06d}", version); }

std::string TableFileName(TableId t, uint64_t version, std::string_view suffix) {
  return fmt::format("{}-{:06d}{}.tbl", TableName(t), version, suffix);
}

std::string Manifest::Encode() const {
  std::string out(kMagicLine);
  out += fmt::format("version {}\n", version);
  for (int i = 0; i < kNumTables; ++i) {
    const TableFile& f = tables[i];
    out += fmt::format("table {} {} {} {} {:08x}\n", TableName(static_cast<TableId>(i)), f.name,
                       f.records, f.size, f.crc);
  }
  out += fmt::format("crc {:08x}\n", crc32c::Value(out));
  return out;
}

Result<Manifest> Manifest::Decode(std::string_view text, const std::string& path) {
  size_t crc_pos = text.rfind("crc ");
  if (!text.starts_with(kMagicLine) || crc_pos == std::string_view::npos || text.back() != '\n') {
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
  int line_no = 1, tables_seen = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream fields(line);
    std::string word, table;
    fields >> word;
    if (word == "version" && (fields >> m.version)) continue;
    TableFile f;
    if (word != "table" || !(fields >> table >> f.name >> f.records >> f.size >> std::hex >> f.crc)) {
      return Err(Bad(path, line_no, "malformed line '" + line + "'"));
    }
    auto id = ParseTableName(table);
    if (!id) return Err(Bad(path, line_no, id.error().message()));
    if (!m.table(*id).name.empty()) return Err(Bad(path, line_no, "table named twice"));
    m.table(*id) = f;
    ++tables_seen;
  }
  if (tables_seen != kNumTables || m.version == 0) {
    return Err(Bad(path, line_no, "manifest lacks a version or a table"));
  }
  return m;
}

Result<Manifest> CreateEmptyTables(nutchfs::Env& env, const std::string& dir) {
  NUTCHFS_RETURN_IF_ERROR(env.CreateDirs(dir));
  Manifest m;
  m.version = 1;
  for (int i = 0; i < kNumTables; ++i) {
    TableFile& f = m.tables[i];
    f.name = TableFileName(static_cast<TableId>(i), m.version);
    NUTCHFS_ASSIGN_OR_RETURN(auto builder, TableBuilder::Create(env, dir + "/" + f.name));
    NUTCHFS_RETURN_IF_ERROR(builder->Finish());
    f.size = builder->file_size();
    f.crc = builder->file_crc();
  }
  return m;
}

Result<Manifest> ReadCurrentManifest(nutchfs::Env& env, const std::string& dir) {
  auto current = nutchfs::ReadFileToString(env, dir + "/CURRENT");
  if (!current) {
    if (current.error().IsNotFound()) return Err(Status::NotFound("no webdb at " + dir));
    return Err(current.error());
  }
  std::string name = *current;
  if (name.empty() || name.back() != '\n' || !name.starts_with("MANIFEST-")) {
    return Err(Status::Corruption(dir + "/CURRENT: malformed"));
  }
  name.pop_back();
  const std::string path = dir + "/" + name;
  NUTCHFS_ASSIGN_OR_RETURN(std::string text, nutchfs::ReadFileToString(env, path));
  return Manifest::Decode(text, path);
}

Status InstallManifest(nutchfs::Env& env, const std::string& dir, const Manifest& m) {
  const std::string name = ManifestFileName(m.version);
  NUTCHFS_RETURN_IF_ERROR(nutchfs::WriteFileAtomically(env, dir + "/" + name, m.Encode()));
  return nutchfs::WriteFileAtomically(env, dir + "/CURRENT", name + "\n");
}

Status RemoveObsoleteFiles(nutchfs::Env& env, const std::string& dir,
                           const std::vector<const Manifest*>& live) {
  NUTCHFS_ASSIGN_OR_RETURN(auto names, env.GetChildren(dir));
  for (const std::string& name : names) {
    if (!IsDbFileName(name)) continue;
    bool used = false;
    for (const Manifest* m : live) {
      used = used || name == ManifestFileName(m->version);
      for (const TableFile& f : m->tables) used = used || f.name == name;
    }
    if (used) continue;
    Status s = env.RemoveFile(dir + "/" + name);
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  return Status::OK();
}

}  // namespace webdb
