// Table: an open, immutable table: its rows in one or more part files (docs/FORMAT.md,
// "Table files"), each part's keys above those of the part before it, as a manifest names
// them (webdb/manifest_table.h). Open() checks each part's footer and loads the sparse
// indexes (each data block's last key and handle) into memory, as compactly as they are
// on disk (the keys back to back, two integers per block); data blocks are numbered
// across the parts in key order and read on demand by iterators: Seek reads one block,
// sequential scans read ahead in large chunks covering many blocks of a part.
//
// The Table owns its RandomAccessFiles. Iterators hold a pointer to their Table, which
// must outlive them. A Table is immutable after Open(), so any number of threads may
// create and use their own iterators concurrently; each iterator is used by one thread.
#ifndef WEBDB_TABLE_H_
#define WEBDB_TABLE_H_

#include <cstdint>
#include <memory>
#include <optional>
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

// The keys k with lower <= k < upper (no upper: every key from lower on).
struct KeyRange {
  std::string lower;
  std::optional<std::string> upper;
  bool Contains(std::string_view key) const { return key >= lower && (!upper || key < *upper); }
};

class Table {
 public:
  // Corruption naming path (and an offset) when the file is not a well-formed table:
  // too short, truncated, bad magic, version or checksum, inconsistent index.
  static Result<std::unique_ptr<Table>> Open(nutchfs::Env& env, const std::string& path);
  static Result<std::unique_ptr<Table>> Open(std::unique_ptr<nutchfs::RandomAccessFile> file);
  // A table stored in parts, in key order; the same checks for each. That every key of
  // a part is above those of the part before is checked as iterators cross from one to
  // the next (each block's first key against the last key of the block before it).
  // REQUIRES: !parts.empty().
  static Result<std::unique_ptr<Table>> Open(
      std::vector<std::unique_ptr<nutchfs::RandomAccessFile>> parts);
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  // An iterator over all rows in key order. Its status() is Corruption
  // ("<path>: ... at offset N") on a bad block, and it then stops (Valid() false).
  std::unique_ptr<Iterator> NewIterator() const;
  // An iterator over the rows whose keys range contains: SeekToFirst() and Seek() never
  // go below range.lower, and it ends (status OK) before the first key at or above
  // range.upper. It offers blocks (AtBlockStart, BlockAt) only where all their rows lie in
  // the range, and its moves over several rows stop at range.upper.
  std::unique_ptr<Iterator> NewIterator(const KeyRange& range) const;

  // The most memory Open() keeps for a table file with this footer: the index keys and
  // two integers per block (the writers leave it out of their sorters' budget).
  static uint64_t IndexMemory(const Footer& footer) {
    return footer.index.size + 2 * sizeof(uint64_t) * footer.num_blocks;
  }

  uint64_t num_records() const { return num_records_; }
  size_t num_parts() const { return parts_.size(); }
  const Footer& footer(size_t part) const { return parts_[part].footer; }
  const std::string& path(size_t part) const { return parts_[part].file->path(); }
  uint64_t num_blocks() const { return block_ends_.size(); }
  // The last key of data block i, from the index. REQUIRES: i < num_blocks().
  std::string_view block_last_key(uint64_t i) const {
    const uint64_t begin = i == 0 ? 0 : key_ends_[i - 1];
    return std::string_view(keys_).substr(begin, key_ends_[i] - begin);
  }
  // Where data block i is in the file of the part that holds it. REQUIRES: i < num_blocks().
  BlockHandle block_handle(uint64_t i) const { return block_handle(i, PartOf(i)); }

 private:
  class Iter;

  struct Part {
    std::unique_ptr<nutchfs::RandomAccessFile> file;
    Footer footer;
    uint64_t first_block = 0;      // the number of its first data block in the table
    uint64_t records_through = 0;  // records of this part and of the parts before it
  };

  Table() = default;
  Status AddPart(std::unique_ptr<nutchfs::RandomAccessFile> file);
  Status ParseIndex(const Part& part, std::string_view index);
  // The part that holds block i. REQUIRES: i < num_blocks().
  size_t PartOf(uint64_t i) const;
  // Where data block i is in the file of part, which holds it.
  BlockHandle block_handle(uint64_t i, size_t part) const {
    const uint64_t offset = i == parts_[part].first_block ? 0 : block_ends_[i - 1];
    return {offset, block_ends_[i] - offset - kBlockTrailerSize};
  }
  // The end of the data blocks of part p (where its index starts).
  uint64_t part_blocks_end(size_t p) const {
    return p + 1 < parts_.size() ? parts_[p + 1].first_block : num_blocks();
  }

  std::vector<Part> parts_;
  uint64_t num_records_ = 0;
  // The indexes, part after part: the last keys of the data blocks back to back, where
  // each one ends in keys_, and where each block ends in its part's file (its trailer
  // included: blocks are contiguous from offset 0 in each part, which Open checks).
  std::string keys_;
  std::vector<uint64_t> key_ends_;
  std::vector<uint64_t> block_ends_;
};

}  // namespace webdb

#endif  // WEBDB_TABLE_H_
