// Verifying a layered table's layers against each other (webdb verify; docs/DESIGN.md,
// "Layered tables"): one merge of the base and the runs, oldest first, checks that every
// run row's tag agrees with the layers below it — an insert where none holds the key, a
// replace or a remove where one does — which is what makes a table's row count, the
// base's records plus each run's inserts less its removes, exact; and that the rows the
// layers make are as many as the manifest counts. The files themselves are checked by
// table_check.h. Memory: one read buffer a layer. Stateless; thread-safe.
#ifndef WEBDB_INSPECT_LAYER_CHECK_H_
#define WEBDB_INSPECT_LAYER_CHECK_H_

#include <string>

#include "webdb/inspect/finding.h"
#include "webdb/table/layered_table.h"

namespace webdb {

// Reports every disagreement into log, naming the run file and the key; `counted` names
// where the table's count comes from in messages ("MANIFEST-000007"). True when there is
// none. REQUIRES: every file of the table was found sound.
bool CheckLayers(const LayeredTable& table, TableId t, const std::string& counted,
                 FindingLog& log);

}  // namespace webdb

#endif  // WEBDB_INSPECT_LAYER_CHECK_H_
