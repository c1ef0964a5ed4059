// RunSink: a RowSink that keeps a stage's changes as a run (docs/DESIGN.md, "Writing a
// round"; docs/FORMAT.md, "Run files") instead of a whole new table. The stage hands it
// every row of the new table, as it would to a TableWriter; the sink compares them with
// the layers the run goes over (the base and the runs it does not absorb, merged) and
// writes only the differences: a key they lack is an insert, a value they hold otherwise
// a replace, a key of theirs the stage did not hand on a remove. Because it compares with
// the layers below rather than with the old table, a run that absorbs newer runs gets
// exact tags for free: a row put by an absorbed run and removed now leaves no trace, a
// tombstone of an absorbed run under a row put again becomes a replace. Blocks the stage
// copies whole (RowSink::AddBlock) are rows no layer above the base touches: the sink
// steps over them by a seek. A sparse stage (docs/DESIGN.md, "Seeks") hands the rows it
// does not read as kept (RowSink::KeepRows): the sink moves the layers below past them by
// a seek, and writes what the runs it absorbs hold there, those being rows of the table
// that the stage did not hand. Not thread-safe.
#ifndef WEBDB_DB_RUN_SINK_H_
#define WEBDB_DB_RUN_SINK_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "webdb/db/manifest.h"
#include "webdb/db/table_writer.h"
#include "webdb/table/iterator.h"
#include "webdb/table/layered_table.h"

namespace webdb {

class RunSink final : public RowSink {
 public:
  // below: the layers under the run, unpositioned; absorbed: the runs it absorbs, oldest
  // first, as stored (tags and tombstones), unpositioned, and names for their errors;
  // out: the run's file.
  RunSink(std::unique_ptr<Iterator> below, std::vector<std::unique_ptr<Iterator>> absorbed,
          std::vector<std::string> absorbed_names, std::unique_ptr<TableWriter> out);
  RunSink(const RunSink&) = delete;
  RunSink& operator=(const RunSink&) = delete;

  Status Add(std::string_view key, std::string_view value) override;
  Status AddBlock(const RawBlock& block) override;
  Status KeepRows(std::string_view from, std::optional<std::string_view> limit) override;
  // Tombstones for the rows below after the last key added, then the run file finished
  // (as TableWriter::Finish), with its inserts and removes.
  Result<RunFile> Finish();

 private:
  // Tombstones for the rows below before key (all of them with none).
  Status RemoveBelow(std::optional<std::string_view> key);
  Status Put(RunTag tag, std::string_view key, std::string_view value);
  // Moves below past its rows before key (all of them with none), which stay.
  Status KeepBelow(std::optional<std::string_view> key);
  // Writes the row the absorbed runs hold at their smallest key below limit, against
  // below, and moves past it; false when none is left below limit.
  Result<bool> CarryAbsorbed(std::optional<std::string_view> limit);

  std::unique_ptr<Iterator> below_;
  std::vector<std::unique_ptr<Iterator>> absorbed_;
  const std::vector<std::string> absorbed_names_;
  bool kept_to_end_ = false;  // KeepRows kept every row after from
  std::unique_ptr<TableWriter> out_;
  std::string tagged_;  // the stored value being written
  uint64_t inserts_ = 0;
  uint64_t removes_ = 0;
};

}  // namespace webdb

#endif  // WEBDB_DB_RUN_SINK_H_
