// TableWriter: a RowSink that builds one table file and describes it for a manifest,
// reporting progress as rows go out, and hands the finished file to a DeferredSyncs to
// be synced while the next stage runs. Used by every driver of the merge stages.
// Not thread-safe.
#ifndef WEBDB_DB_TABLE_WRITER_H_
#define WEBDB_DB_TABLE_WRITER_H_

#include <memory>
#include <string>

#include "webdb/db/manifest.h"
#include "webdb/stages/stages.h"
#include "webdb/table/table_builder.h"
#include "webdb/util/progress.h"

namespace webdb {

class TableWriter final : public RowSink {
 public:
  // Creates dir/name with data blocks of about target_block_size bytes. expected_rows
  // (0 if unknown) is the progress total. syncs must outlive the writer.
  static Result<std::unique_ptr<TableWriter>> Create(nutchfs::Env& env, const std::string& dir,
                                                     const std::string& name,
                                                     size_t target_block_size, std::string step,
                                                     uint64_t expected_rows,
                                                     const ProgressFn& progress,
                                                     DeferredSyncs& syncs);

  Status Add(std::string_view key, std::string_view value) override;
  Status AddBlock(const RawBlock& block) override;
  Result<StoredRun> AddStoredRun(std::string_view previous_key, std::string_view records,
                                 std::optional<std::string_view> limit) override;
  // Finishes the file, complete for readers, and hands it to the syncs (a failure to
  // sync is reported by their Wait(), naming the step); returns its manifest entry.
  Result<TableFile> Finish();

 private:
  TableWriter(std::unique_ptr<TableBuilder> builder, std::string name, std::string step,
              uint64_t expected_rows, const ProgressFn& progress, DeferredSyncs& syncs);
  // Counts rows added at once, reporting progress when they cross a step.
  void Counted(uint64_t rows);

  std::unique_ptr<TableBuilder> builder_;
  const std::string name_;
  const std::string step_;
  const uint64_t expected_rows_;
  const ProgressFn& progress_;
  DeferredSyncs& syncs_;
  uint64_t rows_ = 0;
};

}  // namespace webdb

#endif  // WEBDB_DB_TABLE_WRITER_H_
