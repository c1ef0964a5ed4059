#include "webdb/db/manifest_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

constexpr size_t kSumReadSize = 1 << 20;

// The file, or NotFound naming the manifest that names it.
Result<std::unique_ptr<nutchfs::RandomAccessFile>> OpenFile(nutchfs::Env& env,
                                                            const TableRef& ref) {
  auto file = env.NewRandomAccessFile(ref.path);
  if (!file && file.error().IsNotFound()) {
    return nutchfs::Err(Status::NotFound(ref.path + ": missing, named by " + ref.manifest));
  }
  return file;
}

}  // namespace

Status CheckTableSize(const TableRef& ref, uint64_t size) {
  if (size == ref.entry.size) return Status::OK();
  return Status::Corruption(
      fmt::format("{}: size {} bytes, {} says {}", ref.path, size, ref.manifest, ref.entry.size));
}

Status CheckTableFooter(const TableRef& ref, const Footer& footer) {
  if (footer.num_records != ref.entry.records) {
    return Status::Corruption(fmt::format("{}: footer counts {} records, {} says {}", ref.path,
                                          footer.num_records, ref.manifest, ref.entry.records));
  }
  if (ref.entry.id != 0 && footer.file_id != ref.entry.id) {
    return Status::Corruption(
        fmt::format("{}: file id {:016x}, {} names {:016x}: another table file is in its place",
                    ref.path, footer.file_id, ref.manifest, ref.entry.id));
  }
  return Status::OK();
}

Status CheckTableCrc(const TableRef& ref, uint32_t crc) {
  if (crc == ref.entry.crc) return Status::OK();
  return Status::Corruption(
      fmt::format("{}: file CRC32C {:08x}, {} says {:08x}", ref.path, crc, ref.manifest,
                  ref.entry.crc));
}

Result<FileSum> SumFile(nutchfs::Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewSequentialFile(path));
  auto scratch = std::make_unique<char[]>(kSumReadSize);
  FileSum sum;
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, file->Read(kSumReadSize, scratch.get()));
    if (got.empty()) return sum;
    sum.crc = crc32c::Extend(sum.crc, got.data(), got.size());
    sum.size += got.size();
  }
}

Status CheckTableBytes(nutchfs::Env& env, const TableRef& ref) {
  auto sum = SumFile(env, ref.path);
  if (!sum && sum.error().IsNotFound()) {
    return Status::NotFound(ref.path + ": missing, named by " + ref.manifest);
  }
  if (!sum) return sum.error();
  NUTCHFS_RETURN_IF_ERROR(CheckTableSize(ref, sum->size));
  return CheckTableCrc(ref, sum->crc);
}

namespace {

// Whether m names the file name as a part or a run of table t.
bool Names(const Manifest& m, TableId t, const std::string& name) {
  const TableParts& parts = m.table(t);
  const TableRuns& runs = m.runs_of(t);
  return std::any_of(parts.begin(), parts.end(),
                     [&](const TableFile& f) { return f.name == name; }) ||
         std::any_of(runs.begin(), runs.end(),
                     [&](const RunFile& r) { return r.file.name == name; });
}

}  // namespace

Status CheckCarriedTables(nutchfs::Env& env, const std::string& dir, const Manifest& from,
                          const Manifest& next, const std::string& label,
                          const std::vector<Manifest>* dropped) {
  auto check = [&](TableId t, const TableRef& ref) {
    if (dropped != nullptr && std::all_of(dropped->begin(), dropped->end(), [&](const Manifest& m) {
          return Names(m, t, ref.entry.name);
        })) {
      return Status::OK();
    }
    return CheckTableBytes(env, ref);
  };
  for (int i = 0; i < kNumTables; ++i) {
    const auto t = static_cast<TableId>(i);
    if (next.table(t) == from.table(t)) {
      for (const TableRef& ref : TableRefsOf(dir, from, t, label)) {
        NUTCHFS_RETURN_IF_ERROR(check(t, ref));
      }
    }
    // A run `next` keeps from `from` is carried over unread too.
    for (const TableRef& ref : RunRefsOf(dir, from, t, label)) {
      if (Names(next, t, ref.entry.name)) NUTCHFS_RETURN_IF_ERROR(check(t, ref));
    }
  }
  return Status::OK();
}

std::vector<TableRef> TableRefsOf(const std::string& dir, const Manifest& m, TableId t,
                                  const std::string& manifest) {
  std::vector<TableRef> refs;
  for (const TableFile& f : m.table(t)) refs.push_back({dir + "/" + f.name, f, manifest});
  return refs;
}

std::vector<TableRef> RunRefsOf(const std::string& dir, const Manifest& m, TableId t,
                                const std::string& manifest) {
  std::vector<TableRef> refs;
  for (const RunFile& r : m.runs_of(t)) refs.push_back({dir + "/" + r.file.name, r.file, manifest});
  return refs;
}

Result<std::unique_ptr<LayeredTable>> OpenLayeredTableOf(nutchfs::Env& env, const std::string& dir,
                                                         const Manifest& m, TableId t,
                                                         const std::string& manifest) {
  NUTCHFS_ASSIGN_OR_RETURN(auto base, OpenTableOf(env, TableRefsOf(dir, m, t, manifest)));
  std::vector<std::unique_ptr<Table>> runs;
  for (const TableRef& ref : RunRefsOf(dir, m, t, manifest)) {
    NUTCHFS_ASSIGN_OR_RETURN(auto run, OpenTableOf(env, {ref}));
    runs.push_back(std::move(run));
  }
  return std::make_unique<LayeredTable>(std::move(base), std::move(runs), m.records(t));
}

Result<std::unique_ptr<Table>> OpenTableOf(nutchfs::Env& env, const std::vector<TableRef>& parts) {
  std::vector<std::unique_ptr<nutchfs::RandomAccessFile>> files;
  for (const TableRef& ref : parts) {
    NUTCHFS_ASSIGN_OR_RETURN(auto file, OpenFile(env, ref));
    NUTCHFS_RETURN_IF_ERROR(CheckTableSize(ref, file->size()));
    files.push_back(std::move(file));
  }
  NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, Table::Open(std::move(files)));
  for (size_t p = 0; p < parts.size(); ++p) {
    NUTCHFS_RETURN_IF_ERROR(CheckTableFooter(parts[p], table->footer(p)));
  }
  return table;
}

Result<Footer> CheckedFooterOf(nutchfs::Env& env, const TableRef& ref) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, OpenFile(env, ref));
  NUTCHFS_RETURN_IF_ERROR(CheckTableSize(ref, file->size()));
  NUTCHFS_ASSIGN_OR_RETURN(Footer footer, ReadTableFooter(*file));
  NUTCHFS_RETURN_IF_ERROR(CheckTableFooter(ref, footer));
  return footer;
}

Status CheckTableOf(nutchfs::Env& env, const TableRef& ref) {
  auto footer = CheckedFooterOf(env, ref);
  return footer ? Status::OK() : footer.error();
}

Status CheckManifestTables(nutchfs::Env& env, const std::string& dir, const Manifest& m) {
  for (const TableFile* f : m.Files()) {
    NUTCHFS_RETURN_IF_ERROR(
        CheckTableOf(env, {dir + "/" + f->name, *f, ManifestFileName(m.version)}));
  }
  return Status::OK();
}

}  // namespace webdb
