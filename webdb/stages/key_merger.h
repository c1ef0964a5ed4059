// KeyMerger walks a sorted table and a sorted edit stream together, one key at a time:
// for each key present in either input it offers the old row (if any) and all edits
// for that key, in order. It is the loop every merge stage is built on.
// With copy_blocks, where the rows stand at the start of a stored block (see
// Iterator::CurrentBlock) whose key range receives no edit and holds no row that
// `changes` (if given) names as one a join can change, one step offers that whole block
// instead (block() set, no key): a stage that leaves rows without edits unchanged copies
// it as it is, undecoded; and after a step that offered a row of a stored block, the rows
// after it in that block below the next edit and the next notice can be moved past in
// one go (MoveUnchangedRows).
// Nothing is copied when the inputs keep their views (a table iterator's key stays
// until it moves; an edit iterator with views_stable()): the key and the edits' values
// are views into the inputs' buffers. Otherwise the key of an inserted row and the
// edits' values are copied into one buffer. Views stay valid until the next call to
// Next(). Not thread-safe.
#ifndef WEBDB_STAGES_KEY_MERGER_H_
#define WEBDB_STAGES_KEY_MERGER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "webdb/stages/join_changes.h"
#include "webdb/table/iterator.h"

namespace webdb {

using nutchfs::Result;

// One edit of the current key.
struct KeyEdit {
  uint64_t order = 0;
  uint8_t kind = 0;
  std::string_view value;
};

class KeyMerger {
 public:
  // Rewinds rows to its first key. With skip_blocks (and copy_blocks), the blocks a step
  // would offer are moved past instead, those following them that would be offered too
  // unread: for a stage that writes no table.
  KeyMerger(Iterator& rows, EditIterator& edits, bool copy_blocks = false,
            JoinChanges* changes = nullptr, bool skip_blocks = false);
  KeyMerger(const KeyMerger&) = delete;
  KeyMerger& operator=(const KeyMerger&) = delete;

  // Makes the merge sparse (docs/DESIGN.md, "Seeks"), before the first Next(): the rows
  // below the next edit's key and the next notice are not offered but moved past by one
  // Seek of rows, and handed to kept (when not null) as kept unread (RowSink::KeepRows).
  // With group > 0, the rows sharing the first group bytes of the key offered last are
  // offered still, and the next edit's key is cut to its first group bytes: a stage that
  // follows groups of rows (stage 2, the md5s) sees every row of a group it changes.
  void SeekPastUnchanged(RowSink* kept, size_t group);
  // The seeks made so far.
  uint64_t seeks() const { return seeks_; }

  // Moves to the next key; false at the end or on error (then check status()).
  bool Next();

  // The block of this step, or nullptr when the step is one key.
  const RawBlock* block() const { return block_ ? &*block_ : nullptr; }
  std::string_view key() const { return key_; }
  bool has_row() const { return has_row_; }
  std::string_view row_value() const { return rows_.value(); }  // REQUIRES: has_row()
  // Edits for key(), sorted by order. Only the first num_edits() entries are live.
  const KeyEdit& edit(size_t i) const { return edits_buf_[i]; }
  size_t num_edits() const { return num_edits_; }
  uint64_t total_edits() const { return total_edits_; }
  // After a step that offered a row and no edits: moves past the rows after it whose keys
  // start with the same n bytes, unless the next edit's key does too, and returns how
  // many rows it moved past (0 then). Each of them would have been a step of its own
  // with a row and no edits. REQUIRES: has_row(), num_edits() == 0, key().size() >= n.
  uint64_t SkipRowsSharing(size_t n);
  // With copy_blocks: whether the step offered a row of a stored block. The rows after
  // it in that block below the next edit's key and the next notice (JoinChanges::From)
  // are then unchanged, as a block without edits is, and can be moved past in one go
  // (MoveUnchangedRows).
  bool InStoredBlock() const;
  // After a step that offered a row: moves past the rows after it in its block whose keys
  // are below the next edit's key and the next notice, handing them to sink (when not
  // null) as stored, which holds the current key as its last (Iterator::MoveRowsInBlock);
  // the number of rows, or the sink's error. Each of them would have been a step of its
  // own with a row and no edits, which the stage leaves as it is. REQUIRES:
  // InStoredBlock().
  Result<uint64_t> MoveUnchangedRows(RowSink* sink);
  Status status() const;

 private:
  // The first notice at or above from's join key (none without changes).
  std::optional<std::string_view> ChangeFrom(std::string_view from);
  // A block whose key range receives no edit and no notice, the first notice at or above
  // where the block starts being `change`.
  bool Unchanged(const BlockStart& block, std::optional<std::string_view> change) const;
  void CollectEdits();
  // Whether the next edit's key starts with key()'s first n bytes.
  bool EditAmongRowsSharing(size_t n) const;
  // In a sparse merge, moves rows (standing on a row) past the rows it need not offer;
  // false when it cannot (then check status_).
  bool SeekToChange();

  Iterator& rows_;
  EditIterator& edits_;
  const bool copy_blocks_;
  const bool skip_blocks_;
  const bool stable_edits_;  // edits_.views_stable(), which holds for its lifetime
  JoinChanges* const changes_;
  std::optional<RawBlock> block_;
  std::string_view key_;
  std::string key_copy_;  // the key of an inserted row (no row to view)
  bool has_row_ = false;
  bool row_pending_ = false;  // rows_ is positioned on the row of the current key
  std::vector<KeyEdit> edits_buf_;
  std::string values_;  // copies of the edits' values, unless their views are stable
  size_t num_edits_ = 0;
  uint64_t total_edits_ = 0;
  // A sparse merge (SeekPastUnchanged): its sink, its group, the first group bytes of
  // the key offered last, and whether rows were moved past their last row.
  bool seek_ = false;
  RowSink* kept_ = nullptr;
  size_t group_ = 0;
  std::string group_key_;
  bool rows_done_ = false;
  uint64_t seeks_ = 0;
  Status status_;
};

}  // namespace webdb

#endif  // WEBDB_STAGES_KEY_MERGER_H_
