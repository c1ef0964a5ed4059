#include "webdb/db/table_writer.h"

namespace webdb {

constexpr uint64_t kProgressEvery = 1 << 16;

Result<std::unique_ptr<TableWriter>> TableWriter::Create(nutchfs::Env& env,
                                                         const std::string& dir,
                                                         const std::string& name,
                                                         size_t target_block_size,
                                                         std::string step,
                                                         uint64_t expected_rows,
                                                         const ProgressFn& progress,
                                                         DeferredSyncs& syncs) {
  NUTCHFS_ASSIGN_OR_RETURN(auto builder, TableBuilder::Create(env, dir + "/" + name, target_block_size));
  return std::unique_ptr<TableWriter>(new TableWriter(std::move(builder), name, std::move(step),
                                                      expected_rows, progress, syncs));
}

TableWriter::TableWriter(std::unique_ptr<TableBuilder> builder, std::string name,
                         std::string step, uint64_t expected_rows, const ProgressFn& progress,
                         DeferredSyncs& syncs)
    : builder_(std::move(builder)),
      name_(std::move(name)),
      step_(std::move(step)),
      expected_rows_(expected_rows),
      progress_(progress),
      syncs_(syncs) {}

Status TableWriter::Add(std::string_view key, std::string_view value) {
  if (++rows_ % kProgressEvery == 0 && progress_) progress_({step_, rows_, expected_rows_});
  return builder_->Add(key, value);
}

Status TableWriter::AddBlock(const RawBlock& block) {
  Counted(block.records);
  return builder_->AddBlock(block);
}

Result<StoredRun> TableWriter::AddStoredRun(std::string_view previous_key,
                                            std::string_view records,
                                            std::optional<std::string_view> limit) {
  const uint64_t before = builder_->num_records();
  Result<StoredRun> run = builder_->AddStoredRun(previous_key, records, limit);
  Counted(builder_->num_records() - before);
  return run;
}

void TableWriter::Counted(uint64_t rows) {
  const uint64_t before = rows_;
  rows_ += rows;
  if (before / kProgressEvery != rows_ / kProgressEvery && progress_) {
    progress_({step_, rows_, expected_rows_});
  }
}

Result<TableFile> TableWriter::Finish() {
  NUTCHFS_RETURN_IF_ERROR(builder_->FinishDeferred(syncs_, step_));
  if (progress_) progress_({step_, rows_, rows_});
  return TableFile{name_, builder_->num_records(), builder_->file_size(), builder_->file_crc(),
                   builder_->file_id()};
}

}  // namespace webdb
