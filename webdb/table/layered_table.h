// A layered table: a base (a Table, in one or more parts) and the runs over it, oldest
// first (docs/DESIGN.md, "Layered tables"). A run is a table file whose every value
// starts with a tag byte saying what its row does to the layers below it: an insert (a
// key none of them holds), a replace (a key one of them holds) or a remove (a tombstone
// over such a key) (docs/FORMAT.md, "Run files"). The table is the merge of its layers:
// the newest layer holding a key says what the table holds there.
//
// LayeredTable owns its layers, which must outlive its iterators; like a Table it is
// immutable once made, so any number of threads may each use iterators of their own.
#ifndef WEBDB_TABLE_LAYERED_TABLE_H_
#define WEBDB_TABLE_LAYERED_TABLE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "webdb/table/iterator.h"
#include "webdb/table/table.h"

namespace webdb {

enum class RunTag : uint8_t { kInsert = 0, kReplace = 1, kRemove = 2 };

// Whether the layers below a run row hold its key (replace, remove), and whether the
// table holds a row there once the run is applied (insert, replace).
inline bool HeldBelow(RunTag tag) { return tag != RunTag::kInsert; }
inline bool HeldAfter(RunTag tag) { return tag != RunTag::kRemove; }

// The tag a merged row takes: from whether the layers below the oldest row merged held
// the key and whether the table holds it after the newest; nullopt when neither (an
// insert later removed: no row at all).
std::optional<RunTag> TagOf(bool held_below, bool held_after);

struct RunRow {
  RunTag tag = RunTag::kInsert;
  std::string_view value;  // the row's value after the tag; empty for a remove
};
// The tag and value of a run row as stored; nullopt when malformed (no tag, an unknown
// one, a remove with a value).
std::optional<RunRow> DecodeRunValue(std::string_view stored);
// Appends the stored form of a run row to *out.
void EncodeRunValue(RunTag tag, std::string_view value, std::string* out);

// The merge of a base's iterator and its runs' iterators (oldest first), over the same key
// range: rows in key order, the newest layer winning each key, tombstones hidden, run
// values without their tag. A malformed run value stops it with Corruption naming
// run_names[i] and the key. Where the current row is the base's and no run holds a key at
// or below the end of its block, the base's blocks and stored rows are offered as the
// base offers them (Iterator::AtBlockStart and the moves over several rows), so a merge
// of base and runs still copies what no run touches. Seeks that do not go backwards
// leave alone the layers already at or above the target. With no runs: base itself.
std::unique_ptr<Iterator> NewLayeredIterator(std::unique_ptr<Iterator> base,
                                             std::vector<std::unique_ptr<Iterator>> runs,
                                             std::vector<std::string> run_names);

class LayeredTable {
 public:
  // num_records: the table's rows (the base's records, plus each run's inserts less its
  // removes, as the manifest counts them).
  LayeredTable(std::unique_ptr<Table> base, std::vector<std::unique_ptr<Table>> runs,
               uint64_t num_records);
  LayeredTable(const LayeredTable&) = delete;
  LayeredTable& operator=(const LayeredTable&) = delete;

  // The table's rows, merged; within range as Table::NewIterator(range).
  std::unique_ptr<Iterator> NewIterator(const KeyRange& range = {}) const;
  // The merge of the base and its n oldest runs alone: the layers a new run absorbing the
  // others goes over. REQUIRES: n <= num_runs().
  std::unique_ptr<Iterator> NewIteratorBelow(size_t n) const;

  const Table& base() const { return *base_; }
  size_t num_runs() const { return runs_.size(); }
  const Table& run(size_t i) const { return *runs_[i]; }  // oldest first
  uint64_t num_records() const { return num_records_; }
  // The rows stored in the runs (tombstones included).
  uint64_t run_records() const;
  // The data blocks of the base and of the runs.
  uint64_t num_blocks() const;

 private:
  // The base and its n oldest runs, within range.
  std::unique_ptr<Iterator> IteratorOf(const KeyRange& range, size_t n) const;

  std::unique_ptr<Table> base_;
  std::vector<std::unique_ptr<Table>> runs_;
  const uint64_t num_records_;
};

}  // namespace webdb

#endif  // WEBDB_TABLE_LAYERED_TABLE_H_
