// Layered tables made by hand, for the tests of everything that reads them, with layerings
// the writer's own plan does not make (runs over every table at once, whatever the size
// of its rounds, for the distributed writer's sections too): a table's rows rewritten as
// a base and runs (webdb/table/layered_table.h) that merge to exactly the same rows, with
// what makes a merge work — rows the base holds and a run replaces, stale values,
// tombstones over rows the table no longer holds, rows removed then put again, keys put by
// several runs.
//
// Stateless; the layers are held in memory (test-sized tables only).
#ifndef TEST_UTIL_LAYER_TABLES_H_
#define TEST_UTIL_LAYER_TABLES_H_

#include <cstdint>
#include <string>

#include "nutchfs/env.h"
#include "webdb/db/manifest.h"

namespace testutil {

// Each table of m (in dir) rewritten as a new base and up to `runs` runs, written to dir as
// files of `version` and synced; returns m naming them, with that version. The rows the
// layers make are those of m's tables; which row goes where is drawn from seed.
webdb::Result<webdb::Manifest> LayeredCopy(nutchfs::Env& env, const std::string& dir,
                                           const webdb::Manifest& m, uint64_t version,
                                           uint64_t seed, int runs);

// The current version of the single-machine db in dir, republished by LayeredCopy as the
// next version (webdb::PublishVersion: checked, published, garbage collected; the writer's
// lock is not taken: call it between updates).
webdb::Status LayerCurrentVersion(nutchfs::Env& env, const std::string& dir, uint64_t seed,
                                  int runs);

}  // namespace testutil

#endif  // TEST_UTIL_LAYER_TABLES_H_
