// Table: an open, immutable table: its rows in one or more part files (docs/FORMAT.md,
// "Table files"), each part's keys above those of the part before it, as a manifest names
// them (webdb/db/manifest_table.h). Open() checks each part's footer and reads its sparse
// index (each data block's last key and handle) once, front to back, checking it, and
// keeps of it only a summary of each group of kIndexGroup blocks: the group's last key,
// where its entries lie and their checksum. The entries of a group are read again when
// a reader needs them (IndexReader), so that memory grows with the db by one key per
// kIndexGroup blocks, not one per block. Data blocks are numbered across the parts in
// key order and read on demand by iterators: Seek reads one block, sequential scans read
// ahead in large chunks covering many blocks of a part.
//
// The Table owns its RandomAccessFiles. Iterators hold a pointer to their Table, which
// must outlive them. A Table is immutable after Open(), so any number of threads may
// create and use their own iterators concurrently; each iterator is used by one thread.
#ifndef WEBDB_TABLE_TABLE_H_
#define WEBDB_TABLE_TABLE_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"
#include "nutchfs/status.h"
#include "webdb/table/iterator.h"
#include "webdb/table/table_format.h"

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

  // The blocks whose index entries form one group.
  static constexpr uint64_t kIndexGroup = 128;

  // About the memory Open() keeps for a table file with this footer, one reader's group
  // included: a summary and a key a group, keys taken at the average entry's size (the
  // writers leave it out of their sorters' budget).
  static uint64_t IndexMemory(const Footer& footer) {
    const uint64_t groups = (footer.num_blocks + kIndexGroup - 1) / kIndexGroup;
    const uint64_t entry = footer.index.size / std::max<uint64_t>(footer.num_blocks, 1);
    return groups * (sizeof(Group) + entry) + kIndexGroup * entry;
  }

  // Reads a table's index one group of entries at a time, keeping the group it read
  // last (and knowing each group's last key without reading): a scan of the blocks in
  // order reads each group once. Views stay valid until the next call. For one thread;
  // any number may read one Table, each with its own IndexReader. Errors are Corruption
  // or IOError naming the part's file and the offset of the group's entries.
  class IndexReader {
   public:
    explicit IndexReader(const Table& table) : table_(table) {}
    IndexReader(const IndexReader&) = delete;
    IndexReader& operator=(const IndexReader&) = delete;

    // The last key of data block i. REQUIRES: i < num_blocks().
    Result<std::string_view> LastKey(uint64_t i);
    // Where data block i is in the file of the part that holds it. REQUIRES: i < num_blocks().
    Result<BlockHandle> Handle(uint64_t i);
    // The first block whose last key, mapped by join (a prefix of it, nondecreasing in
    // key order; none: the key itself), is at or above key; num_blocks() if none is.
    Result<uint64_t> FirstBlockEndingAtOrAbove(std::string_view key,
                                               std::string_view (*join)(std::string_view) =
                                                   nullptr);

   private:
    // Makes group g the one held.
    Status Load(size_t g);
    // The group that holds block i: the one held, if it does.
    size_t GroupOf(uint64_t i) const;

    const Table& table_;
    size_t group_ = SIZE_MAX;  // the group held: none yet
    std::string entries_;      // its entries as stored
    std::vector<std::string_view> keys_;  // its blocks' last keys, views into entries_
    std::vector<uint64_t> ends_;          // where each of its blocks ends (trailer included)
  };

  uint64_t num_records() const { return num_records_; }
  size_t num_parts() const { return parts_.size(); }
  const Footer& footer(size_t part) const { return parts_[part].footer; }
  const std::string& path(size_t part) const { return parts_[part].file->path(); }
  uint64_t num_blocks() const { return num_blocks_; }
  // The last key of data block i, read from the index (a group of it). REQUIRES:
  // i < num_blocks().
  Result<std::string> BlockLastKey(uint64_t i) const;
  // Where data block i is in the file of the part that holds it. REQUIRES: i < num_blocks().
  Result<BlockHandle> BlockHandleOf(uint64_t i) const;

 private:
  class Iter;

  // What memory keeps of kIndexGroup consecutive index entries of one part (fewer for a
  // part's last group).
  struct Group {
    uint64_t first_block = 0;     // the number of its first block in the table
    uint64_t blocks = 0;
    size_t part = 0;
    uint64_t entries_offset = 0;  // where its entries begin in the part's file
    uint64_t entries_size = 0;
    uint32_t entries_crc = 0;     // CRC32C of its entries' bytes, as Open() read them
    uint64_t first_offset = 0;    // where its first block begins in the part's file
    std::string last_key;         // of its last block
  };

  struct Part {
    std::unique_ptr<nutchfs::RandomAccessFile> file;
    Footer footer;
    uint64_t first_block = 0;      // the number of its first data block in the table
    uint64_t records_through = 0;  // records of this part and of the parts before it
  };

  Table() = default;
  Status AddPart(std::unique_ptr<nutchfs::RandomAccessFile> file);
  // Reads part p's index front to back, checking it, and adds its groups.
  Status ReadIndex(size_t p);
  // The part that holds block i. REQUIRES: i < num_blocks().
  size_t PartOf(uint64_t i) const;
  // The group that holds block i. REQUIRES: i < num_blocks().
  size_t GroupOf(uint64_t i) const;
  // The block after the last one of the group that holds block i.
  uint64_t group_end(uint64_t i) const {
    const Group& g = groups_[GroupOf(i)];
    return g.first_block + g.blocks;
  }

  std::vector<Part> parts_;
  uint64_t num_records_ = 0;
  uint64_t num_blocks_ = 0;
  // The index summaries, part after part, in block order (blocks are contiguous from
  // offset 0 in each part, which Open checks).
  std::vector<Group> groups_;
};

}  // namespace webdb

#endif  // WEBDB_TABLE_TABLE_H_
