// What the stages share: copying an unchanged block, and the default way a RowSink takes one.
#include "webdb/stages.h"

#include "webdb/block.h"
#include "webdb/table_format.h"

namespace webdb {

Status CopyBlock(const RawBlock& block, RowSink& table, StageStats& stats) {
  stats.rows_out += block.records;
  return table.AddBlock(block);
}

Status RowSink::AddBlock(const RawBlock& block) {
  BlockReader reader;
  const std::string name = "copied block";
  reader.Reset(block.bytes.substr(0, block.bytes.size() - kBlockTrailerSize), &name, 0);
  while (reader.Next()) NUTCHFS_RETURN_IF_ERROR(Add(reader.key(), reader.value()));
  return reader.status();
}

}  // namespace webdb
