// Reads the records of one WARC file (ISO 28500, WARC/1.0 and WARC/1.1), plain or gzip
// (a member per record or one stream for the whole file). Framing: docs/FORMAT.md,
// "WARC files".
//
// Next() returns one whole record at a time (headers and block in memory, at most
// max_record_bytes). A record that is truncated or malformed is a Corruption error
// "FILE: record at offset N: reason" (N counts decompressed bytes; for gzip files the
// file offset of the gzip member is named too). After an error the next record boundary
// is unknown: every later Next() returns the same error.
//
// Owns its InputFile; not thread-safe.
#ifndef CRAWL_WARC_READER_H_
#define CRAWL_WARC_READER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crawl/input_file.h"

namespace crawl {

struct WarcRecord {
  std::string version;  // "WARC/1.0" or "WARC/1.1"
  std::vector<std::pair<std::string, std::string>> headers;  // in file order
  std::string block;
  uint64_t offset = 0;  // of the record's first byte, in decompressed bytes

  // The value of the first header called name (case-insensitive), or empty.
  std::string_view Header(std::string_view name) const;
  std::string_view type() const { return Header("WARC-Type"); }
  // WARC-Target-URI without the angle brackets WARC/1.0 examples put around it.
  std::string_view target_uri() const;
};

// Milliseconds since the epoch of a WARC-Date (W3C-ISO8601: YYYY-MM-DDThh:mm:ss[.f]Z,
// or coarser prefixes of it), nullopt if it does not parse.
std::optional<int64_t> ParseWarcDate(std::string_view date);

struct WarcReaderOptions {
  uint64_t max_record_bytes = uint64_t{256} << 20;
};

class WarcReader {
 public:
  static Result<std::unique_ptr<WarcReader>> Open(nutchfs::Env& env, const std::string& path,
                                                  WarcReaderOptions options = {});

  // The next record, nullopt at the end of the file.
  Result<std::optional<WarcRecord>> Next();

  const std::string& path() const { return in_->path(); }
  bool gzip() const { return in_->gzip(); }
  // Bytes of the stored file read so far, for progress and throughput figures.
  uint64_t file_bytes_read() const { return in_->file_bytes_read(); }

 private:
  WarcReader(std::unique_ptr<InputFile> in, WarcReaderOptions options);
  Status Fill(size_t need, uint64_t record_offset, const char* what);
  Status ParseHeaders(std::string_view text, WarcRecord* record, uint64_t* length);
  Status Error(uint64_t record_offset, const std::string& what);

  std::unique_ptr<InputFile> in_;
  WarcReaderOptions options_;
  std::string buf_;      // decompressed bytes not yet consumed start at buf_[pos_]
  size_t pos_ = 0;
  uint64_t buf_offset_ = 0;  // stream offset of buf_[0]
  bool eof_ = false;
  Status failed_;
};

}  // namespace crawl

#endif  // CRAWL_WARC_READER_H_
