// A file read front to back as plain bytes, whether it is stored plain or as gzip (one
// member, or any number of concatenated members such as one per WARC record). The
// format is detected from the first two bytes (1f 8b = gzip).
//
// Read() returns the next decompressed bytes. position() counts decompressed bytes
// handed out so far; MemberOffset(pos) gives the file offset of the gzip member that
// holds decompressed byte pos (0 for plain files), for error messages that point into
// the stored file. A truncated or corrupt gzip stream is a Corruption error naming the
// path and the member's file offset.
//
// Owns its file and zlib state; not thread-safe.
#ifndef CRAWL_INPUT_FILE_H_
#define CRAWL_INPUT_FILE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "nutchfs/env.h"

namespace crawl {

using nutchfs::Result;
using nutchfs::Status;

class InputFile {
 public:
  static Result<std::unique_ptr<InputFile>> Open(nutchfs::Env& env, const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Up to max bytes (at least one unless at the end); empty at the end of the file.
  Result<std::string_view> Read(size_t max);

  bool gzip() const { return gzip_; }
  const std::string& path() const { return file_->path(); }
  uint64_t position() const { return position_; }
  // Compressed bytes read from the file so far.
  uint64_t file_bytes_read() const { return file_offset_; }
  // File offset of the gzip member holding decompressed byte pos. REQUIRES: pos is at
  // or after the start of the oldest member still remembered (members before the one
  // holding the last position passed here are forgotten).
  uint64_t MemberOffset(uint64_t pos);

 private:
  struct Zlib;
  explicit InputFile(std::unique_ptr<nutchfs::SequentialFile> file);
  Status FillInput();
  Result<std::string_view> Inflate(size_t max);
  Status Corrupt(const std::string& what) const;

  std::unique_ptr<nutchfs::SequentialFile> file_;
  std::unique_ptr<Zlib> zlib_;
  bool gzip_ = false;
  std::string in_;       // compressed input buffer
  size_t in_pos_ = 0;    // next unread byte of in_
  bool file_eof_ = false;
  std::string out_;      // decompressed output buffer
  uint64_t position_ = 0;
  uint64_t file_offset_ = 0;  // bytes read from the file
  uint64_t member_start_ = 0;  // file offset of the member being inflated
  bool in_member_ = false;
  // (first decompressed position, file offset) of each member not yet forgotten.
  std::deque<std::pair<uint64_t, uint64_t>> members_;
};

}  // namespace crawl

#endif  // CRAWL_INPUT_FILE_H_
