// TableBuilder: writes one table file (docs/FORMAT.md, "Table files") front to back from
// records added in strictly increasing bytewise key order.
//
// The builder owns its WritableFile. Finish() writes the index and footer, syncs and closes
// the file; FinishDeferred() writes them and hands the file to a DeferredSyncs to sync and
// close. Destroying a builder without either abandons the file (closes it unsynced,
// leaving a partial file for the caller to delete). The index entries of the blocks
// written are kept in memory up to kIndexSpill bytes; beyond that they go to a side file,
// path + ".tmp.index" (a temporary name, which the db's garbage collection removes if
// the process dies), and Finish() copies them after the data blocks and removes it: a
// table's size never sets the builder's memory. The Env must outlive the builder. Not
// thread-safe.
#ifndef WEBDB_TABLE_TABLE_BUILDER_H_
#define WEBDB_TABLE_TABLE_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"
#include "nutchfs/status.h"
#include "webdb/table/block_builder.h"
#include "webdb/table/iterator.h"
#include "webdb/table/table_format.h"
#include "webdb/util/deferred_syncs.h"

namespace webdb {

using nutchfs::Result;
using nutchfs::Status;

class TableBuilder {
 public:
  // Creates (or truncates) path; data blocks end once they reach target_block_size bytes.
  static Result<std::unique_ptr<TableBuilder>> Create(
      nutchfs::Env& env, const std::string& path, size_t target_block_size = kTargetBlockSize);
  // Removes the side file of an unfinished table.
  ~TableBuilder();
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // REQUIRES: key is bytewise greater than every key added before; Finish() not called.
  // InvalidArgument when this is violated. After a failed write every call fails the same.
  Status Add(std::string_view key, std::string_view value);

  // Adds rows of another table file as their records are stored in its data block
  // (RowSink::AddStoredRun): records, the first encoded against previous_key, which must
  // be the key added last (InvalidArgument otherwise), up to the first whose key is at
  // or above limit (all with no limit). Each is copied as it is where Add() would encode
  // the same bytes (within a block); one that starts a block is decoded and added as a
  // row. Malformed records or keys out of order: Corruption, after the rows before them.
  Result<StoredRun> AddStoredRun(std::string_view previous_key, std::string_view records,
                                 std::optional<std::string_view> limit);

  // Appends a data block of another table file as it is (bytes, trailer and crc), after
  // closing the block being built. REQUIRES: the block's first key is greater than every
  // key added before (InvalidArgument otherwise); its crc was checked when it was read.
  Status AddBlock(const RawBlock& block);

  // Writes the last block, the index and the footer, then syncs and closes the file.
  Status Finish();
  // Writes them and flushes the file, complete for readers, then hands it to syncs to be
  // synced and closed on a thread of its own (a failure reported with context).
  Status FinishDeferred(DeferredSyncs& syncs, std::string context);

  uint64_t num_records() const { return num_records_; }
  // Bytes written so far; the whole file size after Finish().
  uint64_t file_size() const { return offset_; }
  // Unmasked CRC32C of the bytes written so far; of the whole file after Finish().
  uint32_t file_crc() const { return file_crc_; }
  // The file id written into the footer (docs/FORMAT.md); 0 before Finish().
  uint64_t file_id() const { return file_id_; }
  const std::string& path() const { return path_; }

 private:
  TableBuilder(nutchfs::Env& env, std::unique_ptr<nutchfs::WritableFile> file,
               size_t target_block_size);

  // The last key added: the block being built keeps it until it is flushed.
  std::string_view LastKey() const { return block_.empty() ? last_key_ : block_.last_key(); }
  Status FlushBlock();
  // Finish() up to the footer, written (not flushed).
  Status WriteTail();
  // Corruption of a stored run's record at offset (error: what is wrong, or nullptr for
  // a key out of order).
  Status StoredRunCorruption(const char* error, size_t offset);
  // Appends data to the file, its crc folded into file_crc_.
  Status Write(std::string_view data);
  // The same for a data block with its trailer, whose crc the trailer gives.
  Status WriteBlock(std::string_view block_with_trailer);
  static uint32_t BlockCrc(std::string_view block_with_trailer);
  Status Append(std::string_view data, uint32_t data_crc);
  // Folds size appended bytes of this crc into file_crc_ and offset_, and starts their
  // writeback every kWritebackStep bytes.
  void Appended(size_t size, uint32_t crc);
  Status AddIndexEntry(std::string_view last_key, const BlockHandle& handle);
  // Appends index_ to the side file, creating it the first time.
  Status SpillIndex();
  // Appends the side file's entries to the table file, then removes the side file.
  Status CopySpilledIndex();

  static constexpr size_t kIndexSpill = size_t{1} << 20;

  nutchfs::Env& env_;
  const std::string path_;
  std::unique_ptr<nutchfs::WritableFile> file_;  // until it is handed to a DeferredSyncs
  BlockBuilder block_;
  // The encoded index entries not yet in the side file: at most kIndexSpill bytes.
  std::string index_;
  std::string index_path_;  // the side file's, once there is one, until it is removed
  std::unique_ptr<nutchfs::WritableFile> index_file_;
  uint64_t index_size_ = 0;
  uint32_t index_crc_ = 0;  // unmasked CRC32C of the entries so far
  std::string last_key_;  // of the last block written
  std::string row_key_;   // a stored record's key, decoded to start a block
  const size_t target_block_size_;
  uint64_t offset_ = 0;
  // Every kWritebackStep bytes the file starts writing out what it has, so that the disk
  // works while the merge goes on and Finish's sync has little left to wait for.
  static constexpr uint64_t kWritebackStep = uint64_t{4} << 20;
  uint64_t writeback_from_ = 0;
  uint64_t num_records_ = 0;
  uint64_t num_blocks_ = 0;
  uint32_t file_crc_ = 0;
  uint64_t file_id_ = 0;
  bool finished_ = false;
  Status status_;  // first write failure; sticky
};

}  // namespace webdb

#endif  // WEBDB_TABLE_TABLE_BUILDER_H_
