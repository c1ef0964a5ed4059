// Edit files: a stream of edits in checksummed frames, format in docs/FORMAT.md
// ("Edit files"). Used for the writer's session log (unsorted), the sorter's spilled runs
// and the files the distributed writer exchanges between machines (sorted).
//
// An EditFileWriter owns its WritableFile; the Env passed in must outlive it. An iterator
// from OpenEditFile owns its SequentialFile. Neither is thread-safe; distinct objects may
// be used from distinct threads.
#ifndef WEBDB_SORT_EDIT_FILE_H_
#define WEBDB_SORT_EDIT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "webdb/table/iterator.h"

namespace webdb {

using nutchfs::Result;

// Frames are filled up to this many payload bytes.
constexpr size_t kEditFrameSize = 64 * 1024;
// Read buffer of OpenEditFile unless told otherwise.
constexpr size_t kEditReadBufferSize = 1 << 20;
// Longest label a file may carry.
constexpr size_t kMaxEditLabel = 4096;

class EditFileWriter final : public EditSink {
 public:
  // Creates (or truncates) path. If sorted, Add() insists on (key, order) order and the
  // header says so. A non-empty label (at most kMaxEditLabel bytes) goes into the header:
  // what the file is, for readers that check it (docs/FORMAT.md).
  static Result<std::unique_ptr<EditFileWriter>> Create(nutchfs::Env& env, const std::string& path,
                                                        bool sorted, std::string_view label = {});
  ~EditFileWriter() override;
  EditFileWriter(const EditFileWriter&) = delete;
  EditFileWriter& operator=(const EditFileWriter&) = delete;

  // InvalidArgument if sorted and edit sorts before the previous one, or after Finish().
  Status Add(const EditView& edit) override;
  // Writes the last frame and the footer, syncs (unless !sync: temporary files such as
  // sort runs need no durability) and closes. Once only. A file whose writer is
  // destroyed without Finish() has no footer and reads as Corruption.
  Status Finish(bool sync = true);

  uint64_t count() const { return count_; }
  // Bytes written to the file so far; after Finish(), the file size.
  uint64_t bytes() const { return file_bytes_; }
  // The footer's file CRC (masked). REQUIRES: Finish() returned OK.
  uint32_t checksum() const { return checksum_; }
  const std::string& path() const;

 private:
  EditFileWriter(std::unique_ptr<nutchfs::WritableFile> file, bool sorted, std::string_view label);
  Status CheckOrder(const EditView& edit) const;
  Status FlushFrame();

  std::unique_ptr<nutchfs::WritableFile> file_;
  const bool sorted_;
  bool finished_ = false;
  std::string header_;
  std::string frame_;  // payload of the frame being filled
  std::string last_key_;  // of the last record: the next one's key shares a prefix with it
  uint64_t last_order_ = 0;
  uint32_t file_crc_;  // running CRC32C (unmasked) of header + frame crc fields
  uint64_t count_ = 0;
  uint64_t payload_bytes_ = 0;
  uint64_t file_bytes_ = 0;
  uint32_t checksum_ = 0;
};

// Reads path front to back with reads of buffer_size bytes (a frame larger than that
// gets a buffer of its own size). Every failure — bad header, frame CRC, undecodable
// record, out-of-order record in a sorted file, missing or wrong footer, trailing bytes —
// turns the iterator invalid with Corruption "<path>: ... at offset N". Opening fails
// when the file cannot be opened, and with Corruption when its header is short or bad,
// or, when expected_label is given, when the file does not carry exactly that label.
Result<std::unique_ptr<EditIterator>> OpenEditFile(
    nutchfs::Env& env, const std::string& path, size_t buffer_size = kEditReadBufferSize,
    std::optional<std::string_view> expected_label = std::nullopt);
// The same, reading through the caller's buffer, which must outlive the iterator (a
// frame larger than it still gets a buffer of its own).
Result<std::unique_ptr<EditIterator>> OpenEditFile(nutchfs::Env& env, const std::string& path,
                                                   std::span<char> buffer);

struct EditFileInfo {
  uint64_t count = 0;          // records
  uint64_t payload_bytes = 0;  // sum of frame payload lengths
  uint64_t file_size = 0;
  uint32_t checksum = 0;  // the footer's file CRC (masked)
  bool sorted = false;
  std::string label;  // empty when the file has none
};

// Header (label included) and footer only, without reading the frames: a cheap check
// that a file is complete and what it claims. Corruption if header or footer is
// malformed.
Result<EditFileInfo> ReadEditFileInfo(nutchfs::Env& env, const std::string& path);

}  // namespace webdb

#endif  // WEBDB_SORT_EDIT_FILE_H_
