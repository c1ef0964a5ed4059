// K-way merge of sorted edit streams into one sorted stream.
//
// The merged iterator owns its inputs. Edits come out in (key, order) order; equal
// (key, order) pairs come out in input order (lower input index first), so a merge of
// runs spilled in insertion order is stable. The first failing input stops the merge:
// Valid() turns false and status() is that input's status. Not thread-safe.
#ifndef WEBDB_TABLE_MERGING_ITERATOR_H_
#define WEBDB_TABLE_MERGING_ITERATOR_H_

#include <memory>
#include <vector>

#include "webdb/table/iterator.h"

namespace webdb {

// REQUIRES: every input is sorted by (key, order) and positioned at its first edit.
std::unique_ptr<EditIterator> NewMergingEditIterator(
    std::vector<std::unique_ptr<EditIterator>> inputs);

}  // namespace webdb

#endif  // WEBDB_TABLE_MERGING_ITERATOR_H_
