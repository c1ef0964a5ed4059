// Table: an open, immutable table file (docs/FORMAT.md, "Table files"). Open() checks the
// footer and loads the sparse index (each data block's last key and handle) into memory,
// as compactly as it is on disk (the keys back to back, two integers per block);
// data blocks are read on demand by iterators: Seek reads one block, sequential scans read
// ahead in large chunks covering many blocks.
//
// The Table owns its RandomAccessFile. Iterators hold a pointer to their Table, which must
// outlive them. A Table is immutable after Open(), so any number of threads may create
// and use their own iterators concurrently; each iterator is used by one thread.
#ifndef WEBDB_TABLE_H_
#define WEBDB_TABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"
#include "nutchfs/status.h"
#include "webdb/iterator.h"
#include "webdb/table_format.h"

namespace webdb {

using nutchfs::Result;
using nutchfs::Status;

// Reads and checks the footer of the table file (too short, bad magic, crc or version, an
// index that does not end at the footer, impossible counts), without reading the index.
Result<Footer> ReadTableFooter(const nutchfs::RandomAccessFile& file);

class Table {
 public:
  // Corruption naming path (and an offset) when the file is not a well-formed table:
  // too short, truncated, bad magic, version or checksum, inconsistent index.
  static Result<std::unique_ptr<Table>> Open(nutchfs::Env& env, const std::string& path);
  static Result<std::unique_ptr<Table>> Open(std::unique_ptr<nutchfs::RandomAccessFile> file);
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  // An iterator over all rows in key order. Its status() is Corruption
  // ("<path>: ... at offset N") on a bad block, and it then stops (Valid() false).
  std::unique_ptr<Iterator> NewIterator() const;

  // The most memory Open() keeps for a table with this footer: the index keys and two
  // integers per block (the writers leave it out of their sorters' budget).
  static uint64_t IndexMemory(const Footer& footer) {
    return footer.index.size + 2 * sizeof(uint64_t) * footer.num_blocks;
  }

  uint64_t num_records() const { return footer_.num_records; }
  const Footer& footer() const { return footer_; }
  uint64_t num_blocks() const { return block_ends_.size(); }
  // The last key of data block i, from the index. REQUIRES: i < num_blocks().
  std::string_view block_last_key(uint64_t i) const {
    const uint64_t begin = i == 0 ? 0 : key_ends_[i - 1];
    return std::string_view(keys_).substr(begin, key_ends_[i] - begin);
  }
  // Where data block i is. REQUIRES: i < num_blocks().
  BlockHandle block_handle(uint64_t i) const {
    const uint64_t offset = i == 0 ? 0 : block_ends_[i - 1];
    return {offset, block_ends_[i] - offset - kBlockTrailerSize};
  }
  uint64_t file_size() const { return file_->size(); }
  const std::string& path() const { return file_->path(); }

 private:
  class Iter;

  explicit Table(std::unique_ptr<nutchfs::RandomAccessFile> file);
  Status ReadIndex();
  Status ParseIndex(std::string_view index);
  Status CorruptionAt(std::string_view what, uint64_t offset) const;
  uint64_t footer_offset() const { return file_->size() - footer_.encoded_size(); }

  std::unique_ptr<nutchfs::RandomAccessFile> file_;
  Footer footer_;
  // The index: the last keys of the data blocks back to back, where each one ends in
  // keys_, and where each block ends (its trailer included: blocks are contiguous from
  // offset 0, which Open checks).
  std::string keys_;
  std::vector<uint64_t> key_ends_;
  std::vector<uint64_t> block_ends_;
};

}  // namespace webdb

#endif  // WEBDB_TABLE_H_
