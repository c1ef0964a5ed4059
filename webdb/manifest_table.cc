#include "webdb/manifest_table.h"

#include <fmt/format.h>

namespace webdb {
namespace {

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

Result<std::unique_ptr<Table>> OpenTableOf(nutchfs::Env& env, const TableRef& ref) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, OpenFile(env, ref));
  NUTCHFS_RETURN_IF_ERROR(CheckTableSize(ref, file->size()));
  NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<Table> table, Table::Open(std::move(file)));
  NUTCHFS_RETURN_IF_ERROR(CheckTableFooter(ref, table->footer()));
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
  for (const TableFile& f : m.tables) {
    NUTCHFS_RETURN_IF_ERROR(CheckTableOf(env, {dir + "/" + f.name, f, ManifestFileName(m.version)}));
  }
  return Status::OK();
}

}  // namespace webdb
