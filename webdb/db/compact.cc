#include "webdb/db/compact.h"

#include <fmt/format.h>

#include <memory>

#include "nutchfs/clock.h"
#include "nutchfs/scoped_lock.h"
#include "webdb/db/manifest_table.h"
#include "webdb/table/table_builder.h"

namespace webdb {
namespace {

bool HasRuns(const Manifest& m) {
  for (const TableRuns& runs : m.runs) {
    if (!runs.empty()) return true;
  }
  return false;
}

// The rows of table, in order, into builder: whole blocks where the merged view offers
// the base's (no run touches them), row by row elsewhere.
Status CopyRows(const LayeredTable& table, TableBuilder& builder) {
  auto it = table.NewIterator();
  it->SeekToFirst();
  while (it->Valid()) {
    if (it->AtBlockStart()) {
      if (std::optional<RawBlock> block = it->CurrentBlock()) {
        NUTCHFS_RETURN_IF_ERROR(builder.AddBlock(*block));
        it->SkipBlock();
        continue;
      }
    }
    NUTCHFS_RETURN_IF_ERROR(builder.Add(it->key(), it->value()));
    it->Next();
  }
  return it->status();
}

}  // namespace

Result<Manifest> CompactTables(nutchfs::Env& env, const std::string& dir, const Manifest& m,
                               uint64_t version) {
  Manifest out = m;
  for (int i = 0; i < kNumTables; ++i) {
    const auto t = static_cast<TableId>(i);
    if (m.runs_of(t).empty()) continue;
    NUTCHFS_ASSIGN_OR_RETURN(
        auto table,
        OpenLayeredTableOf(env, dir, m, t, "the manifest of version " + std::to_string(m.version)));
    const std::string name = TableFileName(t, version);
    NUTCHFS_ASSIGN_OR_RETURN(auto builder, TableBuilder::Create(env, dir + "/" + name));
    Status s = CopyRows(*table, *builder);
    if (s.ok()) s = builder->Finish();
    if (!s.ok()) {
      return Err(s.WithContext(fmt::format("compacting {} into {}", TableName(t), name)));
    }
    if (builder->num_records() != m.records(t)) {
      return Err(Status::Corruption(fmt::format(
          "{}: its layers make {} rows, the manifest of version {} counts {}", TableName(t),
          builder->num_records(), m.version, m.records(t))));
    }
    out.SetBase(t, {TableFile{name, builder->num_records(), builder->file_size(),
                              builder->file_crc(), builder->file_id()}});
  }
  if (HasRuns(m)) {
    out.version = version;
    NUTCHFS_RETURN_IF_ERROR(env.SyncDir(dir));
  }
  return out;
}

Result<RollbackResult> CompactDb(nutchfs::Env& env, const std::string& dir,
                                 const StepHook& hook) {
  if (!env.FileExists(dir + "/CURRENT")) return Err(Status::NotFound("no webdb at " + dir));
  NUTCHFS_ASSIGN_OR_RETURN(auto lock,
                           nutchfs::ScopedLock::Acquire(env, dir + "/LOCK", "webdb compact"));
  if (hook) hook("compact");
  NUTCHFS_ASSIGN_OR_RETURN(Manifest current, ReadCurrentManifest(env, dir));
  NUTCHFS_RETURN_IF_ERROR(CollectGarbage(env, dir, current));  // leftovers of a crash
  if (!HasRuns(current)) return RollbackResult{current.version, false};
  NUTCHFS_ASSIGN_OR_RETURN(Manifest next, CompactTables(env, dir, current, current.version + 1));
  next.time_ms = nutchfs::NowMs();
  next.restores = 0;
  NUTCHFS_RETURN_IF_ERROR(PublishVersion(env, dir, current, next, hook));
  NUTCHFS_RETURN_IF_ERROR(lock->Release());
  return RollbackResult{next.version, true};
}

}  // namespace webdb
