#include "crawl/warc_converter.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <limits>

#include "crawl/domain.h"
#include "crawl/html_charset.h"
#include "crawl/http_response.h"
#include "crawl/url.h"
#include "crawl/url_list.h"
#include "crawl/warc_digest.h"
#include "nutchfs/strings.h"

namespace crawl {

namespace {

constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Adds the time from construction to destruction to *total.
class ScopedTimer {
 public:
  explicit ScopedTimer(uint64_t* total) : total_(total), start_(NowNs()) {}
  ~ScopedTimer() { *total_ += NowNs() - start_; }

 private:
  uint64_t* total_;
  uint64_t start_;
};

}  // namespace

WarcConverter::WarcConverter(UpdateOptions options, PageLookup lookup, webdb::CallSink& sink)
    : options_(std::move(options)), lookup_(std::move(lookup)), sink_(sink) {}

Result<webdb::Page> WarcConverter::Lookup(const std::string& url) {
  if (lookup_) {
    NUTCHFS_ASSIGN_OR_RETURN(auto page, lookup_(url));
    if (page) return std::move(*page);
  }
  return webdb::Page::WithDefaults(url);
}

Status WarcConverter::AddFile(nutchfs::Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto reader, WarcReader::Open(env, path));
  while (true) {
    Result<std::optional<WarcRecord>> record;
    {
      ScopedTimer timer(&stats_.read_ns);
      record = reader->Next();
    }
    if (!record) {
      if (!record.error().IsCorruption() || !options_.skip_bad) return record.error();
      ++stats_.bad_records;
      return Status::OK();
    }
    if (!*record) return Status::OK();
    Status st = AddRecord(**record);
    if (options_.on_record) options_.on_record(path, stats_.records, reader->file_bytes_read());
    if (st.IsCorruption()) {
      if (options_.skip_bad) {
        ++stats_.bad_records;
        continue;
      }
      return Status::Corruption(path + ": record at offset " + std::to_string((*record)->offset) +
                                ": " + st.message());
    }
    if (!st.ok()) return st;
  }
}

Status WarcConverter::AddRecord(const WarcRecord& record) {
  ++stats_.records;
  {
    ScopedTimer timer(&stats_.read_ns);
    NUTCHFS_RETURN_IF_ERROR(CheckWarcDigests(record));
  }
  auto date = ParseWarcDate(record.Header("WARC-Date"));
  if (date) latest_date_ = std::max(latest_date_.value_or(*date), *date);
  std::string_view type = record.type();
  if (type != "response" && type != "revisit") {
    ++stats_.skipped[type.empty() ? std::string("(no WARC-Type)") : std::string(type)];
    return Status::OK();
  }
  std::string_view target = record.target_uri();
  std::string scheme(target.substr(0, target.find(':') + 1));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "http:" && scheme != "https:") {
    ++stats_.skipped[std::string(type) + " of a non-http URI"];
    return Status::OK();
  }
  auto url = NormalizeUrl(target);
  if (!url) return Status::Corruption("WARC-Target-URI: " + url.error().message());
  // The first record about a url decides; a later one's addPage would lose to the first
  // anyway, but its links would still make pages of their targets.
  if (answered_.Contains(*url)) {
    ++stats_.skipped["url answered by an earlier record"];
    return Status::OK();
  }
  if (!date) {
    return Status::Corruption("bad WARC-Date '" + std::string(record.Header("WARC-Date")) + "'");
  }
  Status st = type == "revisit" ? AddRevisit(*url, *date) : AddResponse(*url, *date, record);
  if (st.ok()) answered_.Insert(*url);
  return st;
}

Status WarcConverter::AddFetchList(nutchfs::Env& env, const std::string& path, int64_t now_ms) {
  UrlKeySet failed;
  int64_t date = latest_date_.value_or(now_ms);
  UrlListOptions list{options_.skip_bad, &stats_.bad_records};
  return ReadUrlList(env, path, list, [&](std::string url) -> Status {
    if (answered_.Contains(url) || !failed.Insert(url)) return Status::OK();
    ++stats_.network_failures;
    return AddFailure(url, date);
  });
}

Status WarcConverter::AddResponse(const std::string& url, int64_t date, const WarcRecord& record) {
  Result<HttpResponse> response;
  {
    ScopedTimer timer(&stats_.http_ns);
    response = ParseHttpResponse(record.block);
  }
  if (!response) return response.error();
  int status = response->status;
  if (status >= 200 && status < 300) {
    webdb::Md5 md5 = webdb::Md5Of(response->body);
    std::vector<Outlink> links;
    if (response->IsHtml()) {
      ++stats_.html_pages;
      stats_.html_bytes += response->body.size();
      ScopedTimer timer(&stats_.links_ns);
      std::string decoded;
      const HtmlText html = DecodeHtml(response->body, response->Header("Content-Type"), &decoded);
      if (html.encoding->kind != Encoding::Kind::kUtf8) ++stats_.legacy_charset;
      links = ExtractLinks(html.text, url, options_.links, options_.filter);
    } else {
      ++stats_.other_pages;
    }
    return AddFetched(url, date, md5, links);
  }
  if (status == 304) return AddRevisit(url, date);
  if (status >= 300 && status < 400) {
    ++stats_.redirects;
    std::vector<Outlink> links;
    // An empty reference resolves to the page itself: a redirect without a Location
    // points nowhere, not back at itself.
    const std::string_view location = nutchfs::Trim(response->Header("Location"));
    std::optional<std::string> target;
    if (auto resolved = ResolveUrl(url, location); !location.empty() && resolved) {
      target = std::move(*resolved);
    }
    if (target && (options_.filter == nullptr || options_.filter->Accepts(*target))) {
      links.push_back(Outlink{*target, ""});
    }
    // A redirect's content is where it points: two redirects to one target share it.
    webdb::Md5 md5 = webdb::Md5Of("Location: " + (target ? *target : std::string()));
    return AddFetched(url, date, md5, links);
  }
  if (status == 404 || status == 410) {
    ++stats_.gone;
    NUTCHFS_ASSIGN_OR_RETURN(webdb::Page page, Lookup(url));
    page.md5 = webdb::Md5Of(url);
    page.next_fetch = std::numeric_limits<int64_t>::max();
    page.retries = 0;
    page.num_outlinks = 0;
    ScopedTimer timer(&stats_.calls_ns);
    return sink_.AddPage(page);
  }
  ++stats_.failures;
  return AddFailure(url, date);
}

Status WarcConverter::AddFetched(const std::string& url, int64_t date, const webdb::Md5& md5,
                                 const std::vector<Outlink>& links) {
  NUTCHFS_ASSIGN_OR_RETURN(webdb::Page page, Lookup(url));
  page.md5 = md5;
  page.next_fetch = date + int64_t{page.fetch_interval} * kDayMs;
  page.retries = 0;
  page.num_outlinks = static_cast<int32_t>(links.size());
  ScopedTimer timer(&stats_.calls_ns);
  NUTCHFS_RETURN_IF_ERROR(sink_.AddPage(page));
  int64_t domain_id = DomainIdOfUrl(url);
  for (const Outlink& out : links) {
    webdb::Link link{md5, out.url, domain_id, out.anchor, false};
    NUTCHFS_RETURN_IF_ERROR(sink_.AddLink(link));
    NUTCHFS_RETURN_IF_ERROR(sink_.AddPageIfNotPresent(webdb::Page::WithDefaults(out.url), link));
    ++stats_.links;
  }
  return Status::OK();
}

Status WarcConverter::AddRevisit(const std::string& url, int64_t date) {
  std::optional<webdb::Page> page;
  if (lookup_) {
    NUTCHFS_ASSIGN_OR_RETURN(page, lookup_(url));
  }
  if (!page) {
    ++stats_.skipped["revisit of unknown page"];
    return Status::OK();
  }
  ++stats_.revisits;
  page->next_fetch = date + int64_t{page->fetch_interval} * kDayMs;
  page->retries = 0;
  ScopedTimer timer(&stats_.calls_ns);
  return sink_.AddPage(*page);
}

Status WarcConverter::AddFailure(const std::string& url, int64_t date) {
  NUTCHFS_ASSIGN_OR_RETURN(webdb::Page page, Lookup(url));
  ScopedTimer timer(&stats_.calls_ns);
  if (page.retries >= options_.max_retries) {
    ++stats_.deleted;
    return sink_.DeletePage(url);
  }
  ++page.retries;
  page.next_fetch = date + options_.retry_delay_ms;
  return sink_.AddPage(page);
}

}  // namespace crawl
