// Builders of WARC files and HTTP responses for the crawl tests: records framed as
// docs/FORMAT.md describes, gzip members, chunked bodies. Plain functions on values.
#ifndef TEST_UTIL_WARC_UTIL_H_
#define TEST_UTIL_WARC_UTIL_H_

#include <string>
#include <string_view>

namespace testutil {

// One WARC/1.0 record with the given type, target URI, date and block.
std::string WarcRecordText(std::string_view type, std::string_view uri, std::string_view block,
                           std::string_view date = "2026-01-02T03:04:05Z",
                           std::string_view version = "WARC/1.0");
// An HTTP/1.1 response with status, headers (each "Name: value\r\n") and body.
std::string HttpText(int status, std::string_view headers, std::string_view body);
// A `response` record of an HTML page.
std::string HtmlResponseRecord(std::string_view uri, std::string_view html,
                               std::string_view date = "2026-01-02T03:04:05Z");
// data as one gzip member.
std::string Gzip(std::string_view data);
// data as raw deflate (no zlib header) when raw, else zlib-wrapped.
std::string Deflate(std::string_view data, bool raw);
// data as one brotli stream, or as one zstd frame.
std::string Brotli(std::string_view data);
std::string Zstd(std::string_view data);
// record (WarcRecordText's) with one more header line, "name: value", after the version.
std::string WithWarcHeader(std::string_view record, std::string_view name, std::string_view value);
// "sha1:" and the base32 SHA-1 of data, as wget writes WARC digests.
std::string Sha1Digest(std::string_view data);
// body in chunks of at most chunk bytes, with the terminating zero chunk.
std::string Chunked(std::string_view body, size_t chunk);
// Writes data to path; fails the running test if it cannot.
void WriteFile(const std::string& path, std::string_view data);

}  // namespace testutil

#endif  // TEST_UTIL_WARC_UTIL_H_
