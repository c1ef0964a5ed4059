// Turns what a crawler fetched, as WARC records, into writer calls on a webdb::CallSink:
// the `update` step of the crawl cycle. Every rule is in docs/CRAWL.md, "Update"; in
// short: 2xx pages get the md5 of their body and their outlinks (HTML decoded from its
// character encoding as browsers decode it, crawl/html_charset.h; addLink plus
// addPageIfNotPresent with that link per target), 3xx pages one outlink to the resolved
// Location, 404/410 pages are never due again, other failures are retried and deleted
// past max_retries, revisits (and 304s) only move nextFetch. The first response or
// revisit record about a url decides; later ones are skipped. A fetch list, given after
// the WARCs, names the URLs the crawler was asked for: those without a response or
// revisit record are network failures, retried like other failures.
//
// The converter reads the db only through a PageLookup (the page as it was before this
// session, for retries, fetch intervals and revisits), so it serves a single-machine
// and a distributed db alike; it never closes the sink. Not thread-safe.
#ifndef CRAWL_WARC_CONVERTER_H_
#define CRAWL_WARC_CONVERTER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawl/link_extractor.h"
#include "crawl/url_filter.h"
#include "crawl/url_key_set.h"
#include "crawl/warc_reader.h"
#include "webdb/calls/call_sink.h"
#include "webdb/table/record.h"

namespace crawl {

// The page at a normalized url before the session, nullopt if there is none.
using PageLookup = std::function<Result<std::optional<webdb::Page>>(std::string_view url)>;

struct UpdateOptions {
  LinkExtractorOptions links;
  const UrlFilter* filter = nullptr;  // for link targets; may be null
  int max_retries = 3;
  int64_t retry_delay_ms = int64_t{24} * 3600 * 1000;
  bool skip_bad = false;  // count and skip bad records instead of failing
  // Called after each record of a WARC file with its path, the records converted so far
  // and the bytes of the stored file read so far, for progress reports; may be empty.
  std::function<void(const std::string& path, uint64_t records, uint64_t file_bytes)> on_record;
};

struct UpdateStats {
  uint64_t records = 0;
  uint64_t html_pages = 0;     // 2xx HTML responses
  uint64_t other_pages = 0;    // 2xx responses of other media types
  uint64_t redirects = 0;      // 3xx except 304
  uint64_t gone = 0;           // 404 and 410
  uint64_t failures = 0;       // other status codes: retried
  uint64_t network_failures = 0;  // fetch list URLs without a record: retried
  uint64_t deleted = 0;        // failures of both kinds past max_retries
  uint64_t revisits = 0;       // revisit records and 304 responses
  uint64_t links = 0;          // addLink calls
  uint64_t html_bytes = 0;     // decoded bodies of HTML pages
  uint64_t legacy_charset = 0;  // HTML pages decoded from an encoding other than UTF-8
  uint64_t bad_records = 0;    // skipped with skip_bad (fetch list lines too)
  std::map<std::string, uint64_t> skipped;  // by reason: record type, "revisit of unknown page"
  // Nanoseconds spent reading records (decompression, framing, digests), parsing HTTP
  // (de-chunking and content decoding included), extracting and normalizing links, and
  // in the sink's calls.
  uint64_t read_ns = 0, http_ns = 0, links_ns = 0, calls_ns = 0;

  uint64_t pages_fetched() const { return html_pages + other_pages + redirects + gone; }
};

class WarcConverter {
 public:
  WarcConverter(UpdateOptions options, PageLookup lookup, webdb::CallSink& sink);

  // Converts every record of the WARC file at path. A bad record is a Corruption error
  // naming file and offset, unless skip_bad (a framing error then skips the rest of the
  // file, counted as one bad record). Sink and lookup errors are returned unchanged.
  Status AddFile(nutchfs::Env& env, const std::string& path);
  // Converts one record, after checking its digests (crawl/warc_digest.h); errors are
  // reasons without file context.
  Status AddRecord(const WarcRecord& record);
  // After every WARC: each URL of the fetch list at path (crawl/url_list.h) that no
  // response or revisit record so far decided is a network failure, dated by the
  // latest WARC-Date of any record seen (now_ms if there was none). A URL listed twice
  // fails once. A bad line is InvalidArgument "FILE:LINE: reason" unless skip_bad.
  Status AddFetchList(nutchfs::Env& env, const std::string& path, int64_t now_ms);

  const UpdateStats& stats() const { return stats_; }

 private:
  Status AddResponse(const std::string& url, int64_t date, const WarcRecord& record);
  Status AddFetched(const std::string& url, int64_t date, const webdb::Md5& md5,
                    const std::vector<Outlink>& links);
  Status AddRevisit(const std::string& url, int64_t date);
  Status AddFailure(const std::string& url, int64_t date);
  Result<webdb::Page> Lookup(const std::string& url);

  UpdateOptions options_;
  PageLookup lookup_;
  webdb::CallSink& sink_;
  UpdateStats stats_;
  // Every URL a response or revisit record was converted for. A key collision
  // (crawl/url_key_set.h) could skip one record as a repeat or hide one network
  // failure: its page then comes due when its lease ends, as if it had not been fetched.
  UrlKeySet answered_;
  std::optional<int64_t> latest_date_;  // of any record
};

}  // namespace crawl

#endif  // CRAWL_WARC_CONVERTER_H_
