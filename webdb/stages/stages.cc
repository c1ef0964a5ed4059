// What the stages share: copying an unchanged block.
#include "webdb/stages/stages.h"

namespace webdb {

Status CopyBlock(const RawBlock& block, RowSink& table, StageStats& stats) {
  stats.rows_out += block.records;
  return table.AddBlock(block);
}

}  // namespace webdb
