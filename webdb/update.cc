#include "webdb/update.h"

#include <algorithm>
#include <optional>

#include "webdb/block_marks.h"
#include "webdb/manifest_table.h"
#include "webdb/merging_iterator.h"
#include "webdb/stages.h"
#include "webdb/table_writer.h"

namespace webdb {

const char* StageName(int stage) {
  static const char* const kNames[] = {"stage 1 pagesByURL", "stage 2 pagesByMD5",
                                       "stage 3 linksByMD5", "stage 4 linksByURL",
                                       "stage 5 linksByMD5 fixes"};
  return stage >= 1 && stage <= kNumStages ? kNames[stage - 1] : "stage ?";
}

namespace {

// The part files of table t as manifest m names them in dir (webdb/manifest_table.h).
std::vector<TableRef> RefsOf(const std::string& dir, const Manifest& m, TableId t) {
  return TableRefsOf(dir, m, t, "the manifest of version " + std::to_string(m.version));
}

constexpr TableId kStageTable[kNumStages] = {TableId::kPagesByUrl, TableId::kPagesByMd5,
                                             TableId::kLinksByMd5, TableId::kLinksByUrl,
                                             TableId::kLinksByMd5};

// The data block size each table is written with (docs/FORMAT.md, "Data blocks"). Every
// block that a session's edits miss is copied whole, so a table whose edits land at
// random keys wants small blocks: linksByURL gets one edit per new or removed link at
// the url of its target, linksByMD5 a removal at the source md5 of every link into a
// deleted page. The page tables keep the larger blocks: they are small, and smaller
// blocks cost index memory (about 1% of a table at 8 KiB), which the writers take out of
// the sorters' budget (SorterBudget).
size_t TargetBlockSize(TableId t) {
  switch (t) {
    case TableId::kLinksByUrl: return 8 * 1024;
    case TableId::kLinksByMd5: return 16 * 1024;
    default: return kTargetBlockSize;
  }
}

// One run of the pipeline: the tables as they stand after each stage.
class Update {
 public:
  Update(nutchfs::Env& env, const Manifest& old, const UpdateParams& params,
         StagePlumbing& plumbing)
      : env_(env), params_(params), plumbing_(plumbing), old_(old), next_(old) {
    next_.version = params.new_version;
  }

  Result<Manifest> Run() {
    // The link tables as the session found them: stages 3 and 4 merge them, and the
    // notices of stages 2 and 1 mark which of their blocks a join may change.
    NUTCHFS_ASSIGN_OR_RETURN(old_links_by_md5_, OpenTable(TableId::kLinksByMd5));
    NUTCHFS_ASSIGN_OR_RETURN(old_links_by_url_, OpenTable(TableId::kLinksByUrl));
    md5s_gone_.emplace(*old_links_by_md5_, Md5OfKey);
    target_changes_.emplace(*old_links_by_url_, UrlOfLinkUrlKey);
    for (int stage = 1; stage <= kNumStages; ++stage) {
      const StageHooks& hooks = params_.options->hooks;
      if (hooks.on_stage) hooks.on_stage(stage);
      if (hooks.before_step) hooks.before_step(StageName(stage));
      NUTCHFS_ASSIGN_OR_RETURN(auto edits, plumbing_.Incoming(stage));
      if (!edits->Valid()) NUTCHFS_RETURN_IF_ERROR(edits->status());
      // A stage with no edits changes its table only through the table it joins
      // against, and only when the stage before reported notices; stage 5 writes what
      // stage 3 decided, so it runs whenever stage 3 did.
      const bool joins_changed = (stage == 3 && md5s_gone_->notices() > 0) ||
                                 (stage == 4 && target_changes_->notices() > 0) ||
                                 (stage == 5 && links_by_md5_changed_);
      if (!edits->Valid() && !joins_changed) continue;
      Status s = RunStage(stage, std::move(edits));
      if (!s.ok()) return Err(s.WithContext(StageName(stage)));
    }
    return next_;
  }

 private:
  // Old tables are checked against the old manifest, tables of earlier stages against
  // what their writer reported.
  Result<std::unique_ptr<Table>> OpenTable(TableId t) {
    const bool old = next_.table(t) == old_.table(t);
    return OpenTableOf(env_, RefsOf(params_.dir, old ? old_ : next_, t));
  }

  // The table stage `stage` merges: for stages 5 and 4, the one the marks are about.
  Result<const Table*> OldTable(int stage) {
    if (stage == 5) return old_links_by_md5_.get();
    if (stage == 4) return old_links_by_url_.get();
    NUTCHFS_ASSIGN_OR_RETURN(old_table_, OpenTable(kStageTable[stage - 1]));
    return old_table_.get();
  }

  // Stage 3 writes no table: it tells stage 4 what changes in linksByMD5.
  Status RunStageThree(EditIterator& edits) {
    links_by_md5_changed_ = true;
    NUTCHFS_ASSIGN_OR_RETURN(auto pages, OpenTable(TableId::kPagesByMd5));
    auto rows = pages->NewIterator();
    auto old_rows = old_links_by_md5_->NewIterator();
    Result<StageStats> stats =
        ApplyLinksByMd5(*old_rows, edits, *rows, plumbing_.Sink(4), &*md5s_gone_);
    return stats ? Status::OK() : stats.error();
  }

  Status RunStage(int stage, std::unique_ptr<EditIterator> edits) {
    if (stage == 3) return RunStageThree(*edits);
    if (stage == 5) {
      NUTCHFS_ASSIGN_OR_RETURN(auto added, plumbing_.IncomingStage3Again());
      std::vector<std::unique_ptr<EditIterator>> both;
      both.push_back(std::move(added));
      both.push_back(std::move(edits));
      edits = NewMergingEditIterator(std::move(both));
    }
    return RunTableStage(stage, *edits);
  }

  Status RunTableStage(int stage, EditIterator& edits) {
    const TableId t = kStageTable[stage - 1];
    NUTCHFS_ASSIGN_OR_RETURN(const Table* old_table, OldTable(stage));
    auto old_rows = old_table->NewIterator();
    const std::string name = TableFileName(t, params_.new_version, "");
    NUTCHFS_ASSIGN_OR_RETURN(auto out, TableWriter::Create(env_, params_.dir, name,
                                                           TargetBlockSize(t), StageName(stage),
                                                           old_table->num_records(),
                                                           params_.options->progress));
    Result<StageStats> stats = Apply(stage, *old_rows, edits, *out);
    if (!stats) return stats.error();
    NUTCHFS_ASSIGN_OR_RETURN(TableFile written, out->Finish());
    next_.table(t) = {written};
    return Status::OK();
  }

  Result<StageStats> Apply(int stage, Iterator& old_rows, EditIterator& edits, RowSink& out) {
    switch (stage) {
      case 1:
        return ApplyPagesByUrl(old_rows, edits, params_.url_section,
                               {&out, &plumbing_.Sink(2), &plumbing_.Sink(3), &*target_changes_});
      case 2:
        return ApplyPagesByMd5(old_rows, edits, out, &*md5s_gone_);
      case 4: {
        NUTCHFS_ASSIGN_OR_RETURN(auto pages, OpenTable(TableId::kPagesByUrl));
        auto rows = pages->NewIterator();
        return ApplyLinksByUrl(old_rows, edits, *rows, out, plumbing_.Sink(5), &*target_changes_);
      }
      default: {
        NUTCHFS_ASSIGN_OR_RETURN(auto pages, OpenTable(TableId::kPagesByMd5));
        auto rows = pages->NewIterator();
        return ApplyLinkFixes(old_rows, edits, *rows, out, &*md5s_gone_);
      }
    }
  }

  nutchfs::Env& env_;
  const UpdateParams& params_;
  StagePlumbing& plumbing_;
  const Manifest& old_;
  Manifest next_;
  std::unique_ptr<Table> old_links_by_md5_;
  std::unique_ptr<Table> old_links_by_url_;
  std::unique_ptr<Table> old_table_;  // of the stage running, unless a link table above
  std::optional<BlockMarks> md5s_gone_;
  std::optional<BlockMarks> target_changes_;
  bool links_by_md5_changed_ = false;  // stage 3 ran: stage 5 writes its result
};

}  // namespace

Result<size_t> SorterBudget(nutchfs::Env& env, const std::string& dir, const Manifest& old,
                            size_t memory_budget) {
  auto index_memory = [&](TableId t) -> Result<uint64_t> {
    uint64_t bytes = 0;
    for (const TableRef& ref : RefsOf(dir, old, t)) {
      NUTCHFS_ASSIGN_OR_RETURN(Footer footer, CheckedFooterOf(env, ref));
      bytes += Table::IndexMemory(footer);
    }
    return bytes;
  };
  uint64_t held = 0;
  for (TableId t : {TableId::kLinksByMd5, TableId::kLinksByUrl}) {
    NUTCHFS_ASSIGN_OR_RETURN(uint64_t bytes, index_memory(t));
    held += bytes;
  }
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t by_url, index_memory(TableId::kPagesByUrl));
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t by_md5, index_memory(TableId::kPagesByMd5));
  held += std::max(by_url, by_md5);
  const size_t floor = memory_budget / 4;
  return held >= memory_budget - floor ? floor : memory_budget - held;
}

Result<Manifest> RunUpdate(nutchfs::Env& env, const Manifest& old, const UpdateParams& params,
                           StagePlumbing& plumbing) {
  return Update(env, old, params, plumbing).Run();
}

}  // namespace webdb
