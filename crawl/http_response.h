// The HTTP/1.x response stored in a WARC `response` record: status line, header fields
// and the entity body after undoing Transfer-Encoding: chunked and Content-Encoding
// gzip, x-gzip, deflate, br (brotli) or zstd. Format and leniencies: docs/FORMAT.md, "HTTP
// responses in WARC records".
//
// Plain values; ParseHttpResponse is thread-safe.
#ifndef CRAWL_HTTP_RESPONSE_H_
#define CRAWL_HTTP_RESPONSE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nutchfs/status.h"

namespace crawl {

using nutchfs::Result;
using nutchfs::Status;

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // in message order
  std::string body;  // de-chunked and decoded

  // The first header called name (case-insensitive), or empty.
  std::string_view Header(std::string_view name) const;
  // The media type of Content-Type, lower case, without parameters ("text/html").
  std::string MediaType() const;
  bool IsHtml() const;
};

// Parses block, the WARC record block of a response record. Corruption with a reason on
// a malformed status line, header or chunk, or a body that does not decode.
Result<HttpResponse> ParseHttpResponse(std::string_view block);

// The data of a body sent with Transfer-Encoding: chunked; Corruption if it is not
// chunked data (trailer fields are ignored).
Result<std::string> Dechunk(std::string_view body);

// Undoes gzip (also concatenated members), deflate (zlib or raw), br or zstd (also
// concatenated frames) encoding.
// A decoded entity body may be at most this large: a small compressed response cannot
// expand without bound in memory.
inline constexpr size_t kMaxDecodedBody = size_t{64} << 20;

Result<std::string> DecodeContent(std::string_view encoding, std::string_view body);

}  // namespace crawl

#endif  // CRAWL_HTTP_RESPONSE_H_
