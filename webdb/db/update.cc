#include "webdb/db/update.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "webdb/db/manifest_table.h"
#include "webdb/db/table_writer.h"
#include "webdb/stages/join_changes.h"
#include "webdb/stages/stages.h"
#include "webdb/table/merging_iterator.h"
#include "webdb/util/deferred_syncs.h"

namespace webdb {

const char* StageName(int stage) {
  static const char* const kNames[] = {"stage 1 pagesByURL", "stage 2 pagesByMD5",
                                       "stage 3 linksByMD5", "stage 4 linksByURL",
                                       "stage 5 linksByMD5 fixes"};
  return stage >= 1 && stage <= kNumStages ? kNames[stage - 1] : "stage ?";
}

const std::vector<std::string>& StagePlumbing::splits(int stage) const {
  static const std::vector<std::string> kNone;
  return kNone;
}

namespace {

// The part files of table t as manifest m names them in dir (webdb/db/manifest_table.h).
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

// The md5 tables (pagesByMD5, linksByMD5: keys begin with an md5) cut into n ranges of
// md5s, which are uniform: at the first bytes i * 256 / n.
std::vector<std::string> Md5Splits(size_t n) {
  std::vector<std::string> splits;
  for (size_t i = 1; i < n; ++i) splits.emplace_back(1, static_cast<char>(i * 256 / n));
  return splits;
}

// The last keys of the blocks of `table` that end the first i / n of its blocks, for
// i = 1..n-1; none for a table of fewer than n blocks.
Result<std::vector<std::string>> BlockEnds(const Table& table, size_t n) {
  std::vector<std::string> ends;
  if (table.num_blocks() < n) return ends;
  for (size_t i = 1; i < n; ++i) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string end, table.BlockLastKey(i * table.num_blocks() / n - 1));
    ends.push_back(std::move(end));
  }
  return ends;
}

// Stage 1's ranges: pagesByURL cut right after those block ends (the smallest key above
// each), so that no old block straddles two ranges.
Result<std::vector<std::string>> PageSplits(const Table& old_pages_by_url, size_t n) {
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> splits, BlockEnds(old_pages_by_url, n));
  for (std::string& s : splits) s.push_back('\0');
  return splits;
}

// Stage 4's ranges: the links to urls from each of those page urls on. A linksByURL key
// is url + 0x00 + from, and urls hold no 0x00, so it is at or above such a url exactly
// when its url is: a range of links and the range of their target pages agree.
Result<std::vector<std::string>> LinkUrlSplits(const Table& new_pages_by_url, size_t n) {
  return BlockEnds(new_pages_by_url, n);
}

// A stage's key ranges as its workers merge them: each range with the partitions of the
// edits it reads (all of them when the stage is merged whole).
struct Part {
  KeyRange range;
  std::vector<size_t> partitions;
};

std::vector<Part> PartsOf(const std::vector<std::string>& splits, bool whole) {
  std::vector<size_t> all(splits.size() + 1);
  std::iota(all.begin(), all.end(), 0);
  if (whole) return {Part{{}, all}};
  std::vector<Part> parts;
  for (size_t p = 0; p <= splits.size(); ++p) {
    Part part;
    if (p > 0) part.range.lower = splits[p - 1];
    if (p < splits.size()) part.range.upper = splits[p];
    part.partitions = {p};
    parts.push_back(std::move(part));
  }
  return parts;
}

// Progress of a stage's workers, summed: each worker's table writer reports its own rows.
class StageProgress {
 public:
  StageProgress(const ProgressFn& out, size_t workers, uint64_t expected)
      : out_(out), done_(workers, 0), finished_(workers, false), expected_(expected) {
    for (size_t w = 0; w < workers; ++w) {
      if (out_) fns_.push_back([this, w](const Progress& p) { Report(w, p); });
      else fns_.emplace_back();
    }
  }
  const ProgressFn& ForWorker(size_t w) const { return fns_[w]; }

 private:
  void Report(size_t w, const Progress& p) {
    std::lock_guard<std::mutex> lock(mu_);
    done_[w] = p.done;
    finished_[w] = finished_[w] || (p.total != 0 && p.done == p.total);
    const uint64_t done = std::accumulate(done_.begin(), done_.end(), uint64_t{0});
    const bool all = std::all_of(finished_.begin(), finished_.end(), [](bool f) { return f; });
    out_({p.step, done, all ? done : std::max(expected_, done)});
  }

  const ProgressFn& out_;
  std::mutex mu_;
  std::vector<uint64_t> done_;
  std::vector<bool> finished_;
  const uint64_t expected_;
  std::vector<ProgressFn> fns_;
};

// One run of the pipeline: the tables as they stand after each stage.
class Update {
 public:
  Update(nutchfs::Env& env, const Manifest& old, const UpdateParams& params,
         StagePlumbing& plumbing)
      : env_(env), params_(params), plumbing_(plumbing), old_(old), next_(old) {
    next_.version = params.new_version;
  }

  Result<Manifest> Run() {
    // The link tables as the session found them, which stages 3 to 5 merge, and the
    // notices of stages 1 and 2 that tell them which of their rows a join can change
    // (none to keep for a table without rows: a load's).
    NUTCHFS_ASSIGN_OR_RETURN(old_links_by_md5_, OpenTable(TableId::kLinksByMd5));
    NUTCHFS_ASSIGN_OR_RETURN(old_links_by_url_, OpenTable(TableId::kLinksByUrl));
    const size_t producers = plumbing_.max_partitions();
    if (old_links_by_url_->num_records() > 0) {
      targets_changed_.emplace(env_, params_.dir, "targets", params_.new_version, producers);
    }
    if (old_links_by_md5_->num_records() > 0) {
      md5s_gone_.emplace(env_, params_.dir, "md5s-gone", params_.new_version, producers);
    }
    for (int stage = 1; stage <= kNumStages; ++stage) {
      const StageHooks& hooks = params_.options->hooks;
      if (hooks.on_stage) hooks.on_stage(stage);
      if (hooks.before_step) hooks.before_step(StageName(stage));
      Status s = RunStage(stage);
      std::optional<JoinNotices>& notices = stage == 1 ? targets_changed_ : md5s_gone_;
      if (s.ok() && stage <= 2 && notices) s = notices->Finish();
      if (!s.ok()) return Err(s.WithContext(StageName(stage)));
      // Stage 3 sends linksByURL its edits in the ranges of the new pagesByURL.
      if (stage == 1 && plumbing_.max_partitions() > 1) {
        NUTCHFS_ASSIGN_OR_RETURN(auto pages, OpenTable(TableId::kPagesByUrl));
        NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> splits,
                                 LinkUrlSplits(*pages, plumbing_.max_partitions()));
        plumbing_.SplitEdits(4, std::move(splits));
      }
    }
    if (Status synced = syncs_.Wait(); !synced.ok()) return Err(synced);
    return next_;
  }

 private:
  // Old tables are checked against the old manifest, tables of earlier stages against
  // what their writer reported.
  Result<std::unique_ptr<Table>> OpenTable(TableId t) {
    const bool old = next_.table(t) == old_.table(t);
    return OpenTableOf(env_, RefsOf(params_.dir, old ? old_ : next_, t));
  }

  // The table stage `stage` merges: for stages 3, 4 and 5, the one the marks are about.
  Result<const Table*> OldTable(int stage) {
    if (stage == 3 || stage == 5) return old_links_by_md5_.get();
    if (stage == 4) return old_links_by_url_.get();
    NUTCHFS_ASSIGN_OR_RETURN(old_table_, OpenTable(kStageTable[stage - 1]));
    return old_table_.get();
  }

  // The edits of the stage's partitions, counted where the plumbing can (then its
  // workers read them on their own threads) or read here (then the first is kept in
  // *first for the worker that merges it). Whether there are any.
  Result<bool> HasEdits(int stage, std::unique_ptr<EditIterator>* first) {
    if (const std::optional<uint64_t> count = plumbing_.Count(stage)) return *count > 0;
    NUTCHFS_ASSIGN_OR_RETURN(*first, plumbing_.Incoming(stage, 0));
    if (!(*first)->Valid()) NUTCHFS_RETURN_IF_ERROR((*first)->status());
    return (*first)->Valid();
  }

  Status RunStage(int stage) {
    NUTCHFS_RETURN_IF_ERROR(plumbing_.EndStage(stage));
    std::unique_ptr<EditIterator> first;
    NUTCHFS_ASSIGN_OR_RETURN(bool has_edits, HasEdits(stage, &first));
    const std::vector<std::string>& splits = plumbing_.splits(stage);
    // A stage with no edits changes its table only through the table it joins
    // against, and only when the stage before reported notices; stage 5 writes what
    // stage 3 decided, so it runs whenever stage 3 did.
    const bool joins_changed = (stage == 3 && notices_[1] > 0) || (stage == 4 && notices_[0] > 0) ||
                               (stage == 5 && links_by_md5_changed_);
    if (!has_edits && !joins_changed) {
      // Its sorted edits are ended all the same (stage 5 may read stage 3's again).
      for (size_t p = first ? 1 : 0; p <= splits.size(); ++p) {
        auto ended = plumbing_.Incoming(stage, p);
        if (!ended) return ended.error();
      }
      return Status::OK();
    }
    if (stage == 3) links_by_md5_changed_ = true;
    NUTCHFS_ASSIGN_OR_RETURN(const Table* old_table, OldTable(stage));
    // Its rows to merge: the old ones and its edits, which for stage 5 are stage 3's too.
    uint64_t rows = old_table->num_records() + plumbing_.Count(stage).value_or(0);
    if (stage == 5) rows += plumbing_.Count(3).value_or(0);
    const bool whole = splits.empty() || rows < 2 * params_.options->partition_rows;
    const std::vector<Part> parts = PartsOf(splits, whole);
    NUTCHFS_ASSIGN_OR_RETURN(TableParts files,
                             MergeParts(stage, *old_table, parts, std::move(first)));
    if (stage != 3) next_.table(kStageTable[stage - 1]) = std::move(files);
    return Status::OK();
  }

  // Merges the stage's parts, at once where the options allow; the part files of its
  // new table (none for stage 3), leaving out those with no row but the table's first.
  Result<TableParts> MergeParts(int stage, const Table& old_table, const std::vector<Part>& parts,
                                std::unique_ptr<EditIterator> first) {
    // The new table of an earlier stage that this one joins against.
    std::unique_ptr<Table> joined;
    if (stage >= 3) {
      const TableId t = stage == 4 ? TableId::kPagesByUrl : TableId::kPagesByMd5;
      NUTCHFS_ASSIGN_OR_RETURN(joined, OpenTable(t));
    }
    StageProgress progress(params_.options->progress, parts.size(), old_table.num_records());
    std::vector<Result<std::optional<TableFile>>> written(parts.size());
    auto work = [&](size_t w) {
      std::unique_ptr<EditIterator> read = w == 0 ? std::move(first) : nullptr;
      written[w] = RunPart(stage, w, parts[w], old_table, joined.get(), std::move(read),
                           progress.ForWorker(w));
    };
    if (params_.options->threads && parts.size() > 1) {
      std::vector<std::thread> workers;
      for (size_t w = 1; w < parts.size(); ++w) workers.emplace_back(work, w);
      work(0);
      for (std::thread& t : workers) t.join();
    } else {
      for (size_t w = 0; w < parts.size(); ++w) work(w);
    }
    TableParts files;
    for (auto& part : written) {
      if (!part) return Err(part.error());
      if (*part && (files.empty() || (*part)->records > 0)) files.push_back(**part);
    }
    if (files.size() > 1 && files.front().records == 0) files.erase(files.begin());
    return files;
  }

  // The edits a worker merges: the partitions of its part, and for stage 5 the same
  // partitions of stage 3's edits, read again, before them (an edit of stage 3 comes
  // before a fix of stage 4 with the same key and order).
  Result<std::unique_ptr<EditIterator>> EditsOf(int stage, const Part& part,
                                                std::unique_ptr<EditIterator> first) {
    std::vector<std::unique_ptr<EditIterator>> streams;
    if (stage == 5) {
      for (size_t p : part.partitions) {
        NUTCHFS_ASSIGN_OR_RETURN(auto again, plumbing_.IncomingStage3Again(p));
        streams.push_back(std::move(again));
      }
    }
    for (size_t p : part.partitions) {
      if (p == 0 && first) {
        streams.push_back(std::move(first));
        continue;
      }
      NUTCHFS_ASSIGN_OR_RETURN(auto edits, plumbing_.Incoming(stage, p));
      streams.push_back(std::move(edits));
    }
    if (streams.size() == 1) return std::move(streams.front());
    return NewMergingEditIterator(std::move(streams));
  }

  // Merges one part of the stage: on a thread of its own when the stage runs in parts.
  Result<std::optional<TableFile>> RunPart(int stage, size_t w, const Part& part,
                                           const Table& old_table, const Table* joined,
                                           std::unique_ptr<EditIterator> first,
                                           const ProgressFn& progress) {
    NUTCHFS_ASSIGN_OR_RETURN(auto edits, EditsOf(stage, part, std::move(first)));
    auto old_rows = old_table.NewIterator(part.range);
    std::unique_ptr<Iterator> join_rows;
    std::unique_ptr<JoinChanges> changes;
    if (joined != nullptr) {
      join_rows = joined->NewIterator(KeyRange{part.range.lower, {}});
      const std::optional<JoinNotices>& notices = stage == 4 ? targets_changed_ : md5s_gone_;
      if (notices) {
        NUTCHFS_ASSIGN_OR_RETURN(changes, notices->Read(stage == 4 ? UrlOfLinkUrlKey : Md5OfKey));
      }
    }
    if (stage == 3) {
      Result<StageStats> stats = ApplyLinksByMd5(*old_rows, *edits, *join_rows,
                                                 plumbing_.Sink(4, w), changes.get());
      if (!stats) return Err(stats.error());
      return std::optional<TableFile>();
    }
    const TableId t = kStageTable[stage - 1];
    const std::string suffix = w == 0 ? "" : "-p" + std::to_string(w);
    const std::string name = TableFileName(t, params_.new_version, suffix);
    NUTCHFS_ASSIGN_OR_RETURN(auto out, TableWriter::Create(env_, params_.dir, name,
                                                           TargetBlockSize(t), StageName(stage),
                                                           old_table.num_records(), progress,
                                                           syncs_));
    Result<StageStats> stats = [&]() -> Result<StageStats> {
      switch (stage) {
        case 1: {
          const uint64_t section = params_.url_section * plumbing_.max_partitions() + w;
          return ApplyPagesByUrl(*old_rows, *edits, section,
                                 {out.get(), &plumbing_.Sink(2, w), &plumbing_.Sink(3, w),
                                  targets_changed_ ? &targets_changed_->Sink(w) : nullptr});
        }
        case 2:
          return ApplyPagesByMd5(*old_rows, *edits, *out,
                                 md5s_gone_ ? &md5s_gone_->Sink(w) : nullptr);
        case 4:
          return ApplyLinksByUrl(*old_rows, *edits, *join_rows, *out, plumbing_.Sink(5, w),
                                 changes.get());
        default:
          return ApplyLinkFixes(*old_rows, *edits, *join_rows, *out, changes.get());
      }
    }();
    if (!stats) return Err(stats.error());
    if (stage <= 2) notices_[stage - 1] += stats->notices;
    NUTCHFS_ASSIGN_OR_RETURN(TableFile file, out->Finish());
    return std::optional<TableFile>(std::move(file));
  }

  nutchfs::Env& env_;
  const UpdateParams& params_;
  StagePlumbing& plumbing_;
  const Manifest& old_;
  Manifest next_;
  std::unique_ptr<Table> old_links_by_md5_;
  std::unique_ptr<Table> old_links_by_url_;
  std::unique_ptr<Table> old_table_;  // of the stage running, unless a link table above
  // Where stages 1 and 2 report notices, while the old link table has rows.
  std::optional<JoinNotices> targets_changed_;
  std::optional<JoinNotices> md5s_gone_;
  // Notices of stages 1 (targets changed) and 2 (md5s gone), all parts.
  std::array<std::atomic<uint64_t>, 2> notices_{};
  bool links_by_md5_changed_ = false;  // stage 3 ran: stage 5 writes its result
  // The new tables, synced while the stages after theirs run: all of them before Run()
  // returns the manifest that names them.
  DeferredSyncs syncs_;
};

}  // namespace

Status SplitStageEdits(nutchfs::Env& env, const std::string& dir, const Manifest& old,
                       StagePlumbing& plumbing) {
  const size_t n = plumbing.max_partitions();
  if (n < 2) return Status::OK();
  NUTCHFS_ASSIGN_OR_RETURN(auto pages, OpenTableOf(env, RefsOf(dir, old, TableId::kPagesByUrl)));
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> splits, PageSplits(*pages, n));
  plumbing.SplitEdits(1, std::move(splits));
  for (int stage : {2, 3, 5}) plumbing.SplitEdits(stage, Md5Splits(n));
  return Status::OK();
}

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
