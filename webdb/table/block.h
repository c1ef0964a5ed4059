// BlockReader: decodes the records of one data block of a table file (docs/FORMAT.md,
// "Data blocks"), front to back, checking every length against the block's bounds and the
// strictly increasing key order. Malformed bytes give Corruption naming the file, the
// record's offset and the block's offset, and stop the reader.
//
// The reader does not own the block bytes or the path: both must outlive its use. Views
// from key()/value() are valid until the next Next()/Seek()/Reset(). Not thread-safe.
#ifndef WEBDB_TABLE_BLOCK_H_
#define WEBDB_TABLE_BLOCK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nutchfs/status.h"
#include "webdb/util/coding.h"

namespace webdb {

using nutchfs::Status;

// One record of a data block: its three lengths, where its key's new bytes start and
// where the record ends.
struct RecordHeader {
  uint32_t shared = 0;
  uint32_t unshared = 0;
  uint32_t value_size = 0;
  const char* delta = nullptr;
  const char* end = nullptr;
};

// Decodes a varint32 from [p, limit); nullptr when malformed or cut off by limit.
inline const char* ParseVarint32(const char* p, const char* limit, uint32_t* value) {
  if (p < limit && (static_cast<uint8_t>(*p) & 0x80) == 0) {
    *value = static_cast<uint8_t>(*p);
    return p + 1;
  }
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && p < limit; shift += 7) {
    uint32_t byte = static_cast<uint8_t>(*p++);
    if (shift == 28 && byte > 0x0f) return nullptr;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return p;
    }
  }
  return nullptr;
}

// The lengths of the record at p, which must end by limit: false when its header is
// malformed or it runs past limit ("bad record header" or "record runs past the block
// end" in *what).
inline bool ParseRecord(const char* p, const char* limit, RecordHeader* r, const char** what) {
  if (limit - p >= 3 && ((p[0] | p[1] | p[2]) & 0x80) == 0) {
    // Three one-byte lengths, as most records have: one test for all of them.
    r->shared = static_cast<uint8_t>(p[0]);
    r->unshared = static_cast<uint8_t>(p[1]);
    r->value_size = static_cast<uint8_t>(p[2]);
    p += 3;
  } else if ((p = ParseVarint32(p, limit, &r->shared)) == nullptr ||
             (p = ParseVarint32(p, limit, &r->unshared)) == nullptr ||
             (p = ParseVarint32(p, limit, &r->value_size)) == nullptr) {
    *what = "bad record header";
    return false;
  }
  if (static_cast<uint64_t>(r->unshared) + r->value_size > static_cast<uint64_t>(limit - p)) {
    *what = "record runs past the block end";
    return false;
  }
  r->delta = p;
  r->end = p + r->unshared + r->value_size;
  return true;
}

// Whether previous[0, shared) + delta[0, unshared) is greater than previous. Writers store
// the longest shared prefix, so that is decided by the first delta byte alone.
// REQUIRES: shared <= previous.size().
inline bool FollowsPrevious(const PrefixKey& previous, uint32_t shared, const char* delta,
                            uint32_t unshared) {
  if (unshared == 0) return false;
  return shared == previous.size() ||
         static_cast<uint8_t>(delta[0]) > static_cast<uint8_t>(previous[shared]);
}

// ParseRecord, for a record that follows previous: false also when its shared prefix is
// longer than previous or its key is not greater ("bad shared key prefix length", "key
// not greater than the previous key").
inline bool ParseRecordAfter(const PrefixKey& previous, const char* p, const char* limit,
                             RecordHeader* r, const char** what) {
  if (!ParseRecord(p, limit, r, what)) return false;
  if (r->shared > previous.size()) {
    *what = "bad shared key prefix length";
    return false;
  }
  if (!FollowsPrevious(previous, r->shared, r->delta, r->unshared)) {
    *what = "key not greater than the previous key";
    return false;
  }
  return true;
}

// The number of records in block contents whose crc was checked; nullopt when the
// record headers do not fit the block (BlockReader then reports the details).
std::optional<uint64_t> CountBlockRecords(std::string_view contents);

class BlockReader {
 public:
  BlockReader() = default;
  BlockReader(const BlockReader&) = delete;
  BlockReader& operator=(const BlockReader&) = delete;

  // Starts reading contents (block bytes without trailer, whose crc was checked) of the
  // block at file offset block_offset in file *path. No record is current until Next().
  void Reset(std::string_view contents, const std::string* path, uint64_t block_offset);

  // Decodes the next record. False at the end of the block (status() OK, key() still the
  // last key decoded) or on malformed bytes (status() Corruption).
  bool Next();

  // Restarts at the block's first record and stops at the first key >= target. False if
  // there is none (status() OK) or on malformed bytes (status() Corruption).
  bool Seek(std::string_view target);
  // Moves past the records after the current one that share at least n key bytes with
  // the key before them: with the longest shared prefix stored, the run of records whose
  // keys start with the current key's first n bytes. Only their lengths are read. Next()
  // then decodes the record after them (its key checked against the current one, which
  // has the same first n bytes as the last record moved past). Returns how many records
  // it moved past and sets *last_size to the size of the last one's key (the current
  // key's size if none). Records moved past are checked against the block's bounds and
  // the size of the key before them, not for key order. REQUIRES: started(),
  // key().size() >= n.
  uint64_t SkipSharing(size_t n, size_t* last_size);

  // Decodes records as Next() does until one whose key is at or above limit, which
  // becomes the current record; true then, false at the block's end (status() OK, the
  // block's last record current) or on malformed bytes. Counts the records before that
  // one in *passed. With no limit, every record of the block is passed.
  bool NextAtOrAbove(std::optional<std::string_view> limit, uint64_t* passed);

  // The records after the current one (every record before the first Next()), as
  // stored.
  std::string_view Rest() const { return std::string_view(data_ + pos_, size_ - pos_); }
  // Moves past the first n bytes of Rest(), whole records that the caller decoded (the
  // last of them with key last_key; RowSink::AddStoredRun reports both), and decodes the
  // record after them as Next() does. REQUIRES: started(); n <= Rest().size().
  bool NextAfter(size_t n, std::string_view last_key) {
    if (n > 0) {
      pos_ += n;
      key_.Set(0, last_key);
    }
    return Next();
  }

  std::string_view key() const { return key_.view(); }
  std::string_view value() const { return value_; }
  // Whether a record has been decoded since Reset().
  bool started() const { return started_; }
  const Status& status() const { return status_; }

 private:
  bool Fail(size_t record_pos, std::string_view what);

  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  const std::string* path_ = nullptr;
  uint64_t block_offset_ = 0;
  bool started_ = false;
  PrefixKey key_;
  std::string_view value_;
  Status status_;
};

}  // namespace webdb

#endif  // WEBDB_TABLE_BLOCK_H_
