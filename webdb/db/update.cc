#include "webdb/db/update.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "webdb/db/layer_plan.h"
#include "webdb/db/manifest_table.h"
#include "webdb/db/run_sink.h"
#include "webdb/db/table_writer.h"
#include "webdb/db/versions.h"
#include "webdb/stages/join_changes.h"
#include "webdb/stages/stages.h"
#include "webdb/table/merging_iterator.h"
#include "webdb/util/deferred_syncs.h"

namespace webdb {

const std::vector<std::string>& StagePlumbing::splits(int stage) const {
  static const std::vector<std::string> kNone;
  return kNone;
}

namespace {

// The part files of table t as manifest m names them in dir (webdb/db/manifest_table.h).
std::vector<TableRef> RefsOf(const std::string& dir, const Manifest& m, TableId t) {
  return TableRefsOf(dir, m, t, "the manifest of version " + std::to_string(m.version));
}

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

// Runs are read by seeks more than by scans (docs/FORMAT.md, "Run files").
constexpr size_t kRunBlockSize = 4 * 1024;

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

// The notices of each kind an update keeps (webdb/stages/join_changes.h), with their
// files' names and the count its stages reported.
struct NoticeFiles {
  std::optional<JoinNotices> files;
  std::atomic<uint64_t> count{0};
};

bool IsLinkTable(TableId t) { return t == TableId::kLinksByMd5 || t == TableId::kLinksByUrl; }

// One run of the pipeline: the tables as they stand after each stage, every stage run by
// the same steps from its entry in the stage table (webdb/stages/stage_table.h).
class Update {
 public:
  Update(nutchfs::Env& env, const Manifest& old, const UpdateParams& params,
         StagePlumbing& plumbing)
      : env_(env), params_(params), plumbing_(plumbing), old_(old), next_(old) {
    next_.version = params.new_version;
    next_.rank.reset();  // calls change scores and links: no rank made what it holds
  }

  Result<Manifest> Run() {
    // The link tables as the session found them, which stages 3 to 5 merge, and the
    // notices of stages 1 and 2 that tell them which of their rows a join can change:
    // none to keep for a link table without rows (a load's).
    const size_t producers = plumbing_.max_partitions();
    for (int stage = 1; stage <= kNumStages; ++stage) {
      const StageSpec& spec = Stage(stage);
      if (spec.reads == Notices::kNone) continue;
      NUTCHFS_ASSIGN_OR_RETURN(const LayeredTable* links, OldTable(spec.table));
      NoticeFiles& notices = Of(spec.reads);
      if (links->num_records() > 0 && !notices.files) {
        notices.files.emplace(env_, params_.dir, NoticeFileKind(spec.reads), params_.new_version,
                              producers);
      }
    }
    for (int stage = 1; stage <= kNumStages; ++stage) {
      const StageSpec& spec = Stage(stage);
      const StageHooks& hooks = params_.options->hooks;
      if (hooks.on_stage) hooks.on_stage(stage);
      if (hooks.before_step) hooks.before_step(spec.name);
      Status s = RunStage(stage, spec);
      if (s.ok() && spec.reports != Notices::kNone && Of(spec.reports).files) {
        s = Of(spec.reports).files->Finish();
      }
      if (s.ok()) s = SplitByNewTable(stage, spec);
      if (!s.ok()) return Err(s.WithContext(spec.name));
    }
    if (Status synced = syncs_.Wait(); !synced.ok()) return Err(synced);
    // A table no stage rewrote (a base under a new run, too) is carried over as it is: at
    // most its footer and the blocks a seek or a join reached were read, so its bytes are
    // checked whole before a version names it again (the tables the stages merged had
    // every block's CRC checked) — unless every version the new one stops keeping names
    // it too.
    std::optional<std::vector<Manifest>> dropped;
    if (params_.keep) {
      NUTCHFS_ASSIGN_OR_RETURN(dropped, ManifestsDropped(env_, params_.dir, old_,
                                                         next_.version, *params_.keep));
    }
    NUTCHFS_RETURN_IF_ERROR(CheckCarriedTables(
        env_, params_.dir, old_, next_, "the manifest of version " + std::to_string(old_.version),
        dropped ? &*dropped : nullptr));
    return next_;
  }

 private:
  static const char* NoticeFileKind(Notices n) {
    return n == Notices::kTargetsChanged ? "targets" : "md5s-gone";
  }
  NoticeFiles& Of(Notices n) { return notices_[static_cast<int>(n)]; }

  // Old tables are checked against the old manifest, tables of earlier stages against
  // what their writer reported.
  Result<std::unique_ptr<LayeredTable>> OpenTable(TableId t) {
    const Manifest& m = next_.table(t) == old_.table(t) && next_.runs_of(t) == old_.runs_of(t)
                            ? old_
                            : next_;
    return OpenLayeredTableOf(env_, params_.dir, m, t,
                              "the manifest of version " + std::to_string(m.version));
  }

  // The old table a stage merges. The link tables stay open from the start to the end;
  // a page table only until the next page stage opens its own.
  Result<const LayeredTable*> OldTable(TableId t) {
    if (IsLinkTable(t)) {
      std::unique_ptr<LayeredTable>& links = old_links_[t == TableId::kLinksByUrl ? 1 : 0];
      if (!links) {
        NUTCHFS_ASSIGN_OR_RETURN(links, OpenTable(t));
      }
      return links.get();
    }
    if (!old_pages_ || old_pages_id_ != t) {
      NUTCHFS_ASSIGN_OR_RETURN(old_pages_, OpenTable(t));
      old_pages_id_ = t;
    }
    return old_pages_.get();
  }

  // Once a stage has written a table, the stages that join against it and keep their
  // edits apart by its ranges are told those ranges (before any edit for them is added:
  // only later stages emit for them).
  Status SplitByNewTable(int stage, const StageSpec& spec) {
    if (plumbing_.max_partitions() < 2 || !spec.writes_table) return Status::OK();
    for (int later = stage + 1; later <= kNumStages; ++later) {
      const StageSpec& l = Stage(later);
      if (!l.split_by_joined || l.joins != spec.table) continue;
      NUTCHFS_ASSIGN_OR_RETURN(auto joined, OpenTable(spec.table));
      NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> splits,
                               LinkUrlSplits(joined->base(), plumbing_.max_partitions()));
      plumbing_.SplitEdits(later, std::move(splits));
    }
    return Status::OK();
  }

  // The edits of the stage's partitions, counted where the plumbing can (then its
  // workers read them on their own threads) or opened here (then the first is kept in
  // *first for the worker that merges it, and the plumbing may count them now). Whether
  // there are any.
  Result<bool> HasEdits(int stage, std::unique_ptr<EditIterator>* first) {
    if (const std::optional<uint64_t> count = plumbing_.Count(stage)) return *count > 0;
    NUTCHFS_ASSIGN_OR_RETURN(*first, plumbing_.Incoming(stage, 0));
    if (!(*first)->Valid()) NUTCHFS_RETURN_IF_ERROR((*first)->status());
    return (*first)->Valid();
  }

  Status RunStage(int stage, const StageSpec& spec) {
    NUTCHFS_RETURN_IF_ERROR(plumbing_.EndStage(stage));
    std::unique_ptr<EditIterator> first;
    NUTCHFS_ASSIGN_OR_RETURN(bool has_edits, HasEdits(stage, &first));
    const std::vector<std::string>& splits = plumbing_.splits(stage);
    // A stage with no edits changes its table only through the table it joins
    // against: when the stage before reported notices it reads, or when the stage it
    // completes ran.
    const bool joins_changed = spec.completes != 0 ? ran_[spec.completes - 1]
                                                   : spec.reads != Notices::kNone &&
                                                         Of(spec.reads).count > 0;
    if (!has_edits && !joins_changed) {
      // Its sorted edits are ended all the same (a later stage may read them again).
      for (size_t p = first ? 1 : 0; p <= splits.size(); ++p) {
        auto ended = plumbing_.Incoming(stage, p);
        if (!ended) return ended.error();
      }
      return Status::OK();
    }
    ran_[stage - 1] = true;
    NUTCHFS_ASSIGN_OR_RETURN(const LayeredTable* old_table, OldTable(spec.table));
    const LayerPlan plan = Plan(stage, spec);
    // Its rows to merge: the old ones and its edits, and those of the stage it completes.
    uint64_t rows = AddCounts(old_table->num_records(), plumbing_.Count(stage).value_or(0));
    if (spec.completes != 0) rows = AddCounts(rows, plumbing_.Count(spec.completes).value_or(0));
    // A run is written by one worker: its work follows its changes, not the table.
    const bool whole = !plan.merge || splits.empty() || rows < 2 * params_.options->partition_rows;
    const std::vector<Part> parts = PartsOf(splits, whole);
    NUTCHFS_ASSIGN_OR_RETURN(std::vector<RunFile> files,
                             MergeParts(stage, spec, plan, *old_table, parts, std::move(first)));
    if (!spec.writes_table) return Status::OK();
    if (plan.merge) {
      TableParts base;
      for (RunFile& f : files) base.push_back(std::move(f.file));
      next_.SetBase(spec.table, std::move(base));
      return Status::OK();
    }
    // The new run goes over the runs it did not absorb; one with no row (the changes
    // undid what the absorbed runs did) is left unnamed, for the garbage collector.
    const TableRuns& old_runs = old_.runs_of(spec.table);
    TableRuns runs(old_runs.begin(), old_runs.end() - static_cast<ptrdiff_t>(plan.absorbed));
    if (files.front().file.records > 0) runs.push_back(std::move(files.front()));
    next_.SetLayers(spec.table, old_.table(spec.table), std::move(runs));
    return Status::OK();
  }

  // How the stage writes its table (webdb/db/layer_plan.h), from the manifest's counts
  // and the stage's changes: its edits (with those of the stage it completes) and the
  // notices it reads. Called once HasEdits has opened the edits it could not count (the
  // distributed writer's are counted then); a plumbing that cannot count them even so
  // merges into the base unless the options force a run.
  LayerPlan Plan(int stage, const StageSpec& spec) {
    LayerCounts counts;
    for (const TableFile& part : old_.table(spec.table)) counts.base_rows += part.records;
    for (const RunFile& run : old_.runs_of(spec.table)) counts.run_rows.push_back(run.file.records);
    const std::optional<uint64_t> edits = plumbing_.Count(stage);
    counts.changes = edits.value_or(0);
    if (spec.completes != 0) {
      counts.changes = AddCounts(counts.changes, plumbing_.Count(spec.completes).value_or(0));
    }
    if (spec.reads != Notices::kNone) {
      counts.changes = AddCounts(counts.changes, Of(spec.reads).count);
    }
    LayerPlan plan = Layers(spec, counts, edits.has_value());
    // A stage reads its old rows by seeks only where it hands on none of the rows it
    // does not read: into a run, or nowhere.
    const SeekPolicy seeks = params_.options->seeks;
    if (seeks != SeekPolicy::kWalk && (!spec.writes_table || !plan.merge)) {
      plan.seek = seeks == SeekPolicy::kSeek || (edits && PlanSeeks(counts));
    }
    return plan;
  }

  LayerPlan Layers(const StageSpec& spec, const LayerCounts& counts, bool counted) const {
    const LayerPolicy policy = params_.options->layers;
    if (!spec.writes_table || policy == LayerPolicy::kMerge) return LayerPlan{};
    if (policy == LayerPolicy::kRun) return PlanRun(counts);
    return counted ? PlanLayers(counts) : LayerPlan{};
  }

  // Merges the stage's parts, at once where the options allow; the part files of its
  // new table (none for a stage that writes none), leaving out those with no row but
  // the table's first, or its run.
  Result<std::vector<RunFile>> MergeParts(int stage, const StageSpec& spec, const LayerPlan& plan,
                                          const LayeredTable& old_table,
                                          const std::vector<Part>& parts,
                                          std::unique_ptr<EditIterator> first) {
    std::unique_ptr<LayeredTable> joined;
    if (spec.joins) {
      NUTCHFS_ASSIGN_OR_RETURN(joined, OpenTable(*spec.joins));
    }
    StageProgress progress(params_.options->progress, parts.size(), old_table.num_records());
    std::vector<Result<std::optional<RunFile>>> written(parts.size());
    auto work = [&](size_t w) {
      std::unique_ptr<EditIterator> read = w == 0 ? std::move(first) : nullptr;
      written[w] = RunPart(stage, spec, plan, w, parts[w], old_table, joined.get(), std::move(read),
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
    std::vector<RunFile> files;
    for (auto& part : written) {
      if (!part) return Err(part.error());
      if (*part && (files.empty() || (*part)->file.records > 0)) files.push_back(**part);
    }
    if (files.size() > 1 && files.front().file.records == 0) files.erase(files.begin());
    return files;
  }

  // The edits a worker merges: the partitions of its part, after the same partitions of
  // the edits of the stage it completes, read again (an edit of stage 3 comes before a
  // fix of stage 4 with the same key and order).
  Result<std::unique_ptr<EditIterator>> EditsOf(int stage, const StageSpec& spec,
                                                const Part& part,
                                                std::unique_ptr<EditIterator> first) {
    std::vector<std::unique_ptr<EditIterator>> streams;
    if (spec.completes != 0) {
      for (size_t p : part.partitions) {
        NUTCHFS_ASSIGN_OR_RETURN(auto again, plumbing_.IncomingAgain(spec.completes, p));
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
  // Its part file, or its run (the stage's only part) with its inserts and removes.
  Result<std::optional<RunFile>> RunPart(int stage, const StageSpec& spec, const LayerPlan& plan,
                                         size_t w, const Part& part, const LayeredTable& old_table,
                                         const LayeredTable* joined,
                                         std::unique_ptr<EditIterator> first,
                                         const ProgressFn& progress) {
    NUTCHFS_ASSIGN_OR_RETURN(auto edits, EditsOf(stage, spec, part, std::move(first)));
    auto old_rows = old_table.NewIterator(part.range);
    StageIo io;
    io.old_rows = old_rows.get();
    io.edits = edits.get();
    io.url_section = params_.url_section * plumbing_.max_partitions() + w;
    io.seek = plan.seek;
    std::unique_ptr<Iterator> join_rows;
    std::unique_ptr<JoinChanges> changes;
    if (joined != nullptr) {
      join_rows = joined->NewIterator(KeyRange{part.range.lower, {}});
      io.joined = join_rows.get();
    }
    if (spec.reads != Notices::kNone && Of(spec.reads).files) {
      NUTCHFS_ASSIGN_OR_RETURN(changes, Of(spec.reads).files->Read(JoinKeyOf(spec.reads)));
      io.changes = changes.get();
    }
    if (spec.reports != Notices::kNone && Of(spec.reports).files) {
      io.notices = &Of(spec.reports).files->Sink(w);
    }
    for (size_t i = 0; i < spec.emits_to.size(); ++i) {
      if (spec.emits_to[i] != 0) io.emit[i] = &plumbing_.Sink(spec.emits_to[i], w);
    }
    std::unique_ptr<TableWriter> out;
    std::unique_ptr<RunSink> run;
    if (spec.writes_table) {
      const std::string suffix = !plan.merge ? "-run" : w == 0 ? "" : "-p" + std::to_string(w);
      const std::string name = TableFileName(spec.table, params_.new_version, suffix);
      NUTCHFS_ASSIGN_OR_RETURN(
          out, TableWriter::Create(env_, params_.dir, name,
                                   plan.merge ? TargetBlockSize(spec.table) : kRunBlockSize,
                                   spec.name, old_table.num_records(), progress, syncs_));
      io.table = out.get();
      if (!plan.merge) {
        const size_t below = old_table.num_runs() - plan.absorbed;
        std::vector<std::unique_ptr<Iterator>> absorbed;
        std::vector<std::string> names;
        for (size_t i = below; i < old_table.num_runs(); ++i) {
          absorbed.push_back(old_table.run(i).NewIterator());
          names.push_back(old_table.run(i).path(0));
        }
        run = std::make_unique<RunSink>(old_table.NewIteratorBelow(below), std::move(absorbed),
                                        std::move(names), std::move(out));
        io.table = run.get();
      }
    }
    Result<StageStats> stats = spec.apply(io);
    if (!stats) return Err(stats.error());
    if (spec.reports != Notices::kNone) Of(spec.reports).count += stats->notices;
    if (run) {
      NUTCHFS_ASSIGN_OR_RETURN(RunFile file, run->Finish());
      return std::optional<RunFile>(std::move(file));
    }
    if (!out) return std::optional<RunFile>();
    NUTCHFS_ASSIGN_OR_RETURN(TableFile file, out->Finish());
    return std::optional<RunFile>(RunFile{std::move(file)});
  }

  nutchfs::Env& env_;
  const UpdateParams& params_;
  StagePlumbing& plumbing_;
  const Manifest& old_;
  Manifest next_;
  // The old link tables (linksByMD5, linksByURL), and the old page table of the page
  // stage that ran last.
  std::array<std::unique_ptr<LayeredTable>, 2> old_links_;
  std::unique_ptr<LayeredTable> old_pages_;
  TableId old_pages_id_ = TableId::kPagesByUrl;
  // The notices of each kind (indexed by Notices), kept while the link table they
  // name rows of has rows.
  std::array<NoticeFiles, 3> notices_;
  std::array<bool, kNumStages> ran_{};  // the stages that merged (and wrote, if they write)
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
    std::vector<TableRef> refs = RefsOf(dir, old, t);
    for (TableRef& run : RunRefsOf(dir, old, t, refs.front().manifest)) refs.push_back(run);
    for (const TableRef& ref : refs) {
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
