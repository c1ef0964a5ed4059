// Forward iterators over sorted streams: table rows (Iterator) and edits (EditIterator).
//
// An iterator is used by one thread. Views returned by key()/value()/edit() stay valid
// until the next call that moves the iterator. When Valid() turns false, status() tells
// whether the stream ended or failed: every loop must check it.
#ifndef WEBDB_TABLE_ITERATOR_H_
#define WEBDB_TABLE_ITERATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "nutchfs/status.h"

namespace webdb {

using nutchfs::Result;
using nutchfs::Status;

// Where a data block of a table file starts: enough to decide whether to copy it.
struct BlockStart {
  uint64_t index = 0;  // the block's number in its table file
  std::string_view last_key;
};

// One data block of a table file as stored (docs/FORMAT.md): its bytes and trailer,
// unchanged, with what a table being written needs to take it whole.
struct RawBlock {
  std::string_view bytes;  // block bytes + trailer (crc checked)
  std::string_view first_key;
  std::string_view last_key;
  uint64_t records = 0;
  uint64_t index = 0;  // the block's number in its table file
};

// What a sink took of rows handed to it as stored (RowSink::AddStoredRun).
struct StoredRun {
  size_t bytes = 0;   // of the records, from their front
  uint64_t rows = 0;
  // The key of the last row taken, valid until the sink's next call; empty with no row.
  std::string_view last_key;
};

// Where a stage writes its new table.
class RowSink {
 public:
  virtual ~RowSink() = default;
  // REQUIRES: keys strictly increasing.
  virtual Status Add(std::string_view key, std::string_view value) = 0;
  // Takes a whole block of the old table whose rows the stage leaves unchanged. A table
  // file copies it as it is; this default adds its rows one by one.
  virtual Status AddBlock(const RawBlock& block);
  // Takes rows of the old table that the stage leaves unchanged as their records are
  // stored in a data block (docs/FORMAT.md, "Data blocks"): records, the first encoded
  // against previous_key, the key added last, up to the first whose key is at or above
  // limit (all of them with no limit). A table file copies them as they are where it
  // can; this default decodes them and adds them one by one. Malformed records or keys
  // out of order: Corruption.
  virtual Result<StoredRun> AddStoredRun(std::string_view previous_key, std::string_view records,
                                         std::optional<std::string_view> limit);
  // Takes the rows of the old table from key from up to limit (to its end with none),
  // which the stage leaves as they are without reading them (a stage that moves its old
  // rows by seeks, docs/DESIGN.md "Seeks"). Only a sink that knows the old rows can take
  // them unread (a run's, webdb/db/run_sink.h); this default refuses.
  virtual Status KeepRows(std::string_view from, std::optional<std::string_view> limit);

 private:
  std::string stored_last_key_;  // the default AddStoredRun's last key
};

// Rows of a table in bytewise key order.
class Iterator {
 public:
  virtual ~Iterator() = default;
  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  // Positions at the first key >= target.
  virtual void Seek(std::string_view target) = 0;
  virtual void Next() = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;

  // When the iterator stands on the first row of a stored block: where that block
  // starts (cheap), and the block itself (its rows counted), so that a merge leaving all
  // its rows unchanged can copy it whole. Views stay valid until the iterator moves.
  // nullopt elsewhere, and for iterators not reading a table file.
  virtual std::optional<BlockStart> AtBlockStart() const { return std::nullopt; }
  // False where AtBlockStart() is nullopt for certain: a merge asks on every row, and
  // makes the call only where this is true.
  bool MaybeAtBlockStart() const { return maybe_at_block_start_; }
  virtual std::optional<RawBlock> CurrentBlock() const { return std::nullopt; }
  // Moves past every row of the block. REQUIRES: CurrentBlock() had a value.
  virtual void SkipBlock() {}
  // Where block index of the table file starts, from the file's index alone (nothing
  // read); nullopt past the last block, and for iterators not reading a table file.
  virtual std::optional<BlockStart> BlockAt(uint64_t index) const { return std::nullopt; }
  // Moves to the first row of block index, reading none of the blocks before it (a scan
  // that skips blocks no longer checks the footer's record count). REQUIRES: AtBlockStart()
  // had a value, and index is past its block and at most one past the last block.
  virtual void SkipToBlock(uint64_t index) {}
  // The number of the stored block the current row is in; nullopt for iterators not
  // reading a table file.
  virtual std::optional<uint64_t> BlockIndex() const { return std::nullopt; }
  // Moves past the current row and the rows after it in its stored block whose keys are
  // below limit (all of them with no limit), handing those after the current one to sink,
  // when not null: a table file's iterator hands them as stored (RowSink::AddStoredRun;
  // sink holds the current row as its last), others (one block of all their rows) one by
  // one. Sets *moved to how many rows it handed or passed. The sink's error, if any; the
  // iterator's own in status(). REQUIRES: Valid().
  virtual Status MoveRowsInBlock(std::optional<std::string_view> limit, RowSink* sink,
                                 uint64_t* moved);
  // Moves past the current row and every row after it whose key starts with the same
  // n bytes; returns how many rows that is. A table file's iterator reads no more of
  // them than their lengths. REQUIRES: Valid(), key().size() >= n.
  virtual uint64_t SkipRowsSharing(size_t n);

 protected:
  // Set by iterators over table files while they stand on the first row of a block.
  bool maybe_at_block_start_ = false;
};

// An iterator over nothing (status OK).
std::unique_ptr<Iterator> NewEmptyIterator();

// One edit meant for one table: the row key it concerns, a 64-bit order that makes
// ties deterministic, a kind (meaning fixed by the stage that consumes it) and a value.
struct EditView {
  std::string_view key;
  uint64_t order = 0;
  uint8_t kind = 0;
  std::string_view value;
};

// Edit streams are sorted by (key bytewise, order ascending).
inline bool EditLess(const EditView& a, const EditView& b) {
  int c = a.key.compare(b.key);
  return c < 0 || (c == 0 && a.order < b.order);
}

class EditIterator {
 public:
  virtual ~EditIterator() = default;
  virtual bool Valid() const = 0;
  virtual void Next() = 0;
  virtual const EditView& edit() const = 0;
  virtual Status status() const = 0;
  // True when the views of every edit stay valid as long as the iterator lives (an
  // in-memory sort buffer), so that readers need not copy them.
  virtual bool views_stable() const { return false; }
};

// Where a stage (or the writer's log) hands the edits it emits.
class EditSink {
 public:
  virtual ~EditSink() = default;
  virtual Status Add(const EditView& edit) = 0;
};

std::unique_ptr<EditIterator> NewEmptyEditIterator();

}  // namespace webdb

#endif  // WEBDB_TABLE_ITERATOR_H_
