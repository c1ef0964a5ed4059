// Test helpers for table rows: a vector-backed webdb::Iterator, small table files written
// from a map, and sinks that collect what a stage writes and emits. Plain values; one
// thread.
#ifndef TEST_UTIL_ROW_UTIL_H_
#define TEST_UTIL_ROW_UTIL_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nutchfs/env.h"
#include "test/util/edit_util.h"
#include "webdb/stages/stages.h"
#include "webdb/table/table.h"

namespace testutil {

using Rows = std::vector<std::pair<std::string, std::string>>;

// Iterates rows (REQUIRES: sorted by key, keys distinct).
std::unique_ptr<webdb::Iterator> NewVectorIterator(Rows rows);

// rows written as the table file at path, in blocks of 64 bytes (many blocks from few
// rows), and opened; fails the running Catch2 test if it cannot.
std::unique_ptr<webdb::Table> WriteSmallTable(nutchfs::Env& env, const std::string& path,
                                              const std::map<std::string, std::string>& rows);

class RowCollector final : public webdb::RowSink {
 public:
  webdb::Status Add(std::string_view key, std::string_view value) override {
    rows.emplace_back(key, value);
    return webdb::Status::OK();
  }
  Rows rows;
};

class EditCollector final : public webdb::EditSink {
 public:
  webdb::Status Add(const webdb::EditView& e) override {
    edits.push_back(OwnedEdit::From(e));
    return webdb::Status::OK();
  }
  // The edits sorted by (key, order), as the next stage would read them.
  std::vector<OwnedEdit> Sorted() const { return StableSorted(edits); }
  std::vector<OwnedEdit> edits;
};

}  // namespace testutil

#endif  // TEST_UTIL_ROW_UTIL_H_
