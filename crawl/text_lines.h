// The lines of a crawl input text file (seed files, fetch lists, URL filter rules), cut
// the one way all of them are: a line ends in LF, CRLF or a lone CR (old Mac editors),
// and a UTF-8 byte-order mark at the start of the file is dropped (Windows editors write
// one). Bytes are fed in pieces of any size, so a file is read in fixed-size chunks
// however long its lines, and a CRLF split between two pieces ends one line. Lines are
// numbered from 1, every line counted, for FILE:LINE messages.
//
// Not thread-safe.
#ifndef CRAWL_TEXT_LINES_H_
#define CRAWL_TEXT_LINES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "nutchfs/status.h"

namespace crawl {

using nutchfs::Status;

class TextLines {
 public:
  // Called with each line, without its end, and its number. An error stops the reading
  // and is returned.
  using LineFn = std::function<Status(std::string_view line, uint64_t line_no)>;

  // The lines that bytes completes.
  Status Add(std::string_view bytes, const LineFn& fn);
  // The last line, if the text does not end with a line end.
  Status Finish(const LineFn& fn);

  // All the lines of text.
  static Status Split(std::string_view text, const LineFn& fn);

 private:
  Status Emit(std::string_view line, const LineFn& fn);

  std::string pending_;  // the start of a line whose end has not come yet
  uint64_t line_no_ = 0;
  bool after_cr_ = false;  // the last byte was a CR: an LF right after it ends no line
};

}  // namespace crawl

#endif  // CRAWL_TEXT_LINES_H_
