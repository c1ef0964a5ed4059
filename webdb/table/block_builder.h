// BlockBuilder: encodes one data block of a table file (docs/FORMAT.md, "Data blocks"):
// records with prefix-compressed keys, followed by the block trailer.
//
// The builder owns its buffer; the view returned by Finish() is valid until the next
// Reset() or Add(), or until its buffer is handed to a file (finished_buffer()). Not
// thread-safe.
#ifndef WEBDB_TABLE_BLOCK_BUILDER_H_
#define WEBDB_TABLE_BLOCK_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nutchfs/owned_bytes.h"
#include "webdb/table/table_format.h"
#include "webdb/util/coding.h"

namespace webdb {

class BlockBuilder {
 public:
  // Blocks of about target_size bytes: the buffer starts there and grows only for a
  // block that needs more.
  explicit BlockBuilder(size_t target_size = kTargetBlockSize) : target_size_(target_size) {}
  BlockBuilder(const BlockBuilder&) = delete;
  BlockBuilder& operator=(const BlockBuilder&) = delete;

  // Adds a record; false, adding nothing, when key is not bytewise greater than the last
  // key added since Reset(). REQUIRES: not finished.
  bool Add(std::string_view key, std::string_view value);
  // Appends the records at the front of records (records as stored in a data block, the
  // first encoded against last_key(): each is then the record Add() would encode) as
  // they are, while the block takes them as a table builder with this target block size
  // takes records: it stops before a record that could take the block past target
  // (every record, once the block has reached target), and, with a limit, before the
  // first record whose key is at or above it (*at_limit then set; also when last_key()
  // is). Returns how many bytes it appended and sets *added to how many records. A
  // malformed record, or one whose key is not greater than the one before it, stops it
  // too, with *error saying why (nullptr otherwise). REQUIRES: !empty(), not finished.
  size_t AddStored(std::string_view records, size_t target,
                   std::optional<std::string_view> limit, uint64_t* added, const char** error,
                   bool* at_limit);

  // Appends the trailer and returns block bytes + trailer. REQUIRES: !empty().
  std::string_view Finish();
  // The buffer holding exactly what Finish() returned, for a file to take
  // (WritableFile::AppendBuffer); the builder goes on, after Reset(), with whatever buffer
  // is left in its place. REQUIRES: finished.
  nutchfs::OwnedBytes* finished_buffer();

  // Starts a new, empty block.
  void Reset();

  // Size of the block bytes so far (without trailer).
  size_t size() const { return size_; }
  // Size the block would have with one more record of these lengths (an upper bound).
  size_t SizeWith(size_t key_size, size_t value_size) const;
  bool empty() const { return size_ == 0; }
  // The last key added. REQUIRES: !empty().
  std::string_view last_key() const { return last_key_.view(); }

 private:
  // Makes room for n more bytes after the first size_.
  char* Room(size_t n) {
    if (buffer_.capacity() - size_ < n) Grow(n);
    return buffer_.data() + size_;
  }
  void Grow(size_t n);

  // The block is encoded in place: bytes [size_, capacity) of buffer_ are room, so a
  // record costs two copies, not a string append's checks per field.
  nutchfs::OwnedBytes buffer_;
  const size_t target_size_;
  size_t size_ = 0;
  PrefixKey last_key_;
  bool finished_ = false;
};

}  // namespace webdb

#endif  // WEBDB_TABLE_BLOCK_BUILDER_H_
