#include "crawl/warc_converter.h"

#include <catch2/catch.hpp>
#include <limits>
#include <map>
#include <vector>

#include "crawl/domain.h"
#include "test/util/db_dump.h"
#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"
#include "webdb/calls/call_file.h"
#include "webdb/db/reader.h"

namespace crawl {
namespace {

using testutil::HttpText;
using testutil::WarcRecordText;
using webdb::Call;

constexpr int64_t kDate = int64_t{1767323045} * 1000;  // 2026-01-02T03:04:05Z
constexpr int64_t kDay = int64_t{86400} * 1000;

// Records every call.
class RecordingSink final : public webdb::CallSink {
 public:
  Status AddPage(const webdb::Page& p) override { return Push(Call::Op::kAddPage, p, {}); }
  Status AddPageWithScore(const webdb::Page& p) override {
    return Push(Call::Op::kAddPageWithScore, p, {});
  }
  Status AddPageIfNotPresent(const webdb::Page& p) override {
    return Push(Call::Op::kAddPageIfNotPresent, p, {});
  }
  Status AddPageIfNotPresent(const webdb::Page& p, const webdb::Link& l) override {
    return Push(Call::Op::kAddPageIfNotPresent, p, l);
  }
  Status DeletePage(std::string_view url) override {
    Call c;
    c.op = Call::Op::kDeletePage;
    c.url = std::string(url);
    calls.push_back(c);
    return Status::OK();
  }
  Status AddLink(const webdb::Link& l) override {
    Call c;
    c.op = Call::Op::kAddLink;
    c.link = l;
    calls.push_back(c);
    return Status::OK();
  }
  std::vector<Call> calls;

 private:
  Status Push(Call::Op op, const webdb::Page& p, std::optional<webdb::Link> l) {
    Call c;
    c.op = op;
    c.page = p;
    c.link = std::move(l);
    calls.push_back(c);
    return Status::OK();
  }
};

struct Fixture {
  std::map<std::string, webdb::Page> db;  // what the lookup sees
  RecordingSink sink;
  UpdateOptions options;

  // Converts warc_text, then the fetch list fetch_list if it is not null.
  Status Convert(const std::string& warc_text, const char* fetch_list = nullptr) {
    testutil::TempDir dir;
    testutil::WriteFile(dir.File("x.warc"), warc_text);
    auto env = nutchfs::NewLocalEnv();
    WarcConverter converter(options, [this](std::string_view url) -> Result<std::optional<webdb::Page>> {
      auto it = db.find(std::string(url));
      if (it == db.end()) return std::optional<webdb::Page>();
      return std::optional<webdb::Page>(it->second);
    }, sink);
    Status st = converter.AddFile(*env, dir.File("x.warc"));
    if (st.ok() && fetch_list != nullptr) {
      testutil::WriteFile(dir.File("list"), fetch_list);
      st = converter.AddFetchList(*env, dir.File("list"), kNow);
    }
    stats = converter.stats();
    path = dir.File("x.warc");
    return st;
  }
  static constexpr int64_t kNow = int64_t{1800000000} * 1000;
  UpdateStats stats;
  std::string path;
};

std::string Response(std::string_view uri, int status, std::string_view headers,
                     std::string_view body) {
  return WarcRecordText("response", uri, HttpText(status, headers, body));
}

TEST_CASE("a 2xx HTML page: page, links and their targets", "[update]") {
  Fixture f;
  std::string html = "<a href='/b'>B</a><a href='c#x'>C</a><a href='/b'>again</a>";
  REQUIRE(f.Convert(Response("HTTP://A.example/dir/", 200, "Content-Type: text/html\r\n", html))
              .ok());
  auto& calls = f.sink.calls;
  REQUIRE(calls.size() == 5);
  webdb::Md5 md5 = webdb::Md5Of(html);
  CHECK(calls[0].op == Call::Op::kAddPage);
  CHECK(calls[0].page.url == "http://a.example/dir/");
  CHECK(calls[0].page.md5 == md5);
  CHECK(calls[0].page.next_fetch == kDate + 30 * kDay);
  CHECK(calls[0].page.num_outlinks == 2);
  webdb::Link b{md5, "http://a.example/b", DomainIdOfUrl("http://a.example/"), "B", false};
  CHECK(calls[1].op == Call::Op::kAddLink);
  CHECK(*calls[1].link == b);
  CHECK(calls[2].op == Call::Op::kAddPageIfNotPresent);
  CHECK(calls[2].page == webdb::Page::WithDefaults("http://a.example/b"));
  CHECK(*calls[2].link == b);
  CHECK(calls[3].link->url == "http://a.example/dir/c");
  CHECK(f.stats.html_pages == 1);
  CHECK(f.stats.links == 2);
}

// The link targets of the HTML page body served with headers.
std::vector<std::string> Targets(std::string_view headers, std::string_view body) {
  Fixture f;
  REQUIRE(f.Convert(Response("http://a.example/dir/", 200, headers, body)).ok());
  std::vector<std::string> urls;
  for (const Call& c : f.sink.calls) {
    if (c.op == Call::Op::kAddLink) urls.push_back(c.link->url);
  }
  return urls;
}

// UTF-16 code units (ASCII and Latin-1 text) as bytes, little- or big-endian.
std::string Utf16(std::u16string_view text, bool big_endian) {
  std::string out;
  for (char16_t u : text) {
    const char lo = static_cast<char>(u & 0xFF), hi = static_cast<char>(u >> 8);
    out += big_endian ? std::string{hi, lo} : std::string{lo, hi};
  }
  return out;
}

// Issue 36, item 8: pages in legacy encodings were read as UTF-8, so their non-ASCII
// hrefs became U+FFFD (/café and /cafè both /caf%EF%BF%BD) and a UTF-16 page gave no
// links. Each page's bytes are written out here, in its own encoding.
TEST_CASE("hrefs of pages in legacy encodings are decoded, then percent-encoded as UTF-8",
          "[update]") {
  const std::string html = "Content-Type: text/html\r\n";
  const std::string base = "http://a.example/";
  struct Page {
    const char* what;
    std::string headers, body;
    std::vector<std::string> want;
  };
  const std::string nihon = "%E6%97%A5%E6%9C%AC", tokyo = "%E6%9D%B1%E4%BA%AC";
  const std::vector<Page> pages = {
      {"Shift_JIS by HTTP", "Content-Type: text/html; charset=Shift_JIS\r\n",
       "<a href=/\x93\xFA\x96\x7B>1</a><a href=/\x93\x8C\x8B\x9E>2</a><a href=/\x95\x5C>3</a>",
       {base + nihon, base + tokyo, base + "%E8%A1%A8"}},
      {"EUC-JP by meta", html,
       "<meta charset=euc-jp><a href=/\xC6\xFC\xCB\xDC>1</a><a href=/\xC5\xEC\xB5\xFE>2</a>",
       {base + nihon, base + tokyo}},
      {"GBK by meta http-equiv", html,
       "<meta http-equiv=Content-Type content='text/html; charset=gb2312'>"
       "<a href=/\xD6\xD0\xCE\xC4>1</a>",
       {base + "%E4%B8%AD%E6%96%87"}},
      {"windows-1251 by meta", html,
       "<meta charset=windows-1251><a href=/\xCF\xF0\xE8\xE2\xE5\xF2>1</a>",
       {base + "%D0%9F%D1%80%D0%B8%D0%B2%D0%B5%D1%82"}},
      {"ISO-8859-1 by meta", html,
       "<meta charset=iso-8859-1><a href=/caf\xE9>1</a><a href=/caf\xE8>2</a>",
       {base + "caf%C3%A9", base + "caf%C3%A8"}},
      {"undeclared, not UTF-8: windows-1252", html, "<a href=/caf\xE9>1</a><a href=/caf\xE8>2</a>",
       {base + "caf%C3%A9", base + "caf%C3%A8"}},
      {"undeclared UTF-8", html, "<a href=/caf\xC3\xA9>1</a>", {base + "caf%C3%A9"}},
      {"UTF-16LE by BOM", html,
       "\xFF\xFE" + Utf16(u"<a href=/caf\u00e9>1</a><a href=/x>2</a>", false),
       {base + "caf%C3%A9", base + "x"}},
      {"UTF-16BE by BOM", html, "\xFE\xFF" + Utf16(u"<a href=/caf\u00e8>1</a>", true),
       {base + "caf%C3%A8"}},
      {"UTF-16LE by HTTP", "Content-Type: text/html; charset=utf-16le\r\n",
       Utf16(u"<a href=/caf\u00e9>1</a>", false), {base + "caf%C3%A9"}},
  };
  for (const Page& p : pages) {
    INFO(p.what);
    CHECK(Targets(p.headers, p.body) == p.want);
  }
}

TEST_CASE("anchor text is decoded from the page's encoding too", "[update]") {
  Fixture f;
  REQUIRE(f.Convert(Response("http://a.example/", 200,
                             "Content-Type: text/html; charset=shift_jis\r\n",
                             "<a href=/x>\x93\xFA\x96\x7B</a>"))
              .ok());
  REQUIRE(f.sink.calls.size() == 3);
  CHECK(f.sink.calls[1].link->anchor == "日本");
  // The md5 is of the bytes as served, whatever their encoding.
  CHECK(f.sink.calls[0].page.md5 == webdb::Md5Of("<a href=/x>\x93\xFA\x96\x7B</a>"));
}

TEST_CASE("the fetched page keeps its fetch interval and scores, retries reset", "[update]") {
  Fixture f;
  webdb::Page old = webdb::Page::WithDefaults("http://a.example/");
  old.fetch_interval = 2;
  old.retries = 2;
  old.score = 5;
  f.db[old.url] = old;
  REQUIRE(f.Convert(Response("http://a.example/", 200, "Content-Type: image/png\r\n", "PNG")).ok());
  REQUIRE(f.sink.calls.size() == 1);
  const webdb::Page& p = f.sink.calls[0].page;
  CHECK(p.md5 == webdb::Md5Of("PNG"));
  CHECK(p.next_fetch == kDate + 2 * kDay);
  CHECK(p.retries == 0);
  CHECK(p.score == 5);
  CHECK(p.num_outlinks == 0);
  CHECK(f.stats.other_pages == 1);
}

TEST_CASE("md5 of the decoded entity body", "[update]") {
  Fixture f;
  std::string html = "<a href=x>x</a>";
  std::string body = testutil::Chunked(testutil::Gzip(html), 5);
  REQUIRE(f.Convert(Response("http://a.example/", 200,
                             "Content-Type: text/html\r\nTransfer-Encoding: chunked\r\n"
                             "Content-Encoding: gzip\r\n",
                             body))
              .ok());
  CHECK(f.sink.calls[0].page.md5 == webdb::Md5Of(html));
  CHECK(f.sink.calls[0].page.num_outlinks == 1);
}

TEST_CASE("a redirect has one outlink to the resolved Location", "[update]") {
  Fixture f;
  REQUIRE(f.Convert(Response("http://a.example/old", 301, "Location: new/../moved\r\n", "")).ok());
  auto& calls = f.sink.calls;
  REQUIRE(calls.size() == 3);
  CHECK(calls[0].page.num_outlinks == 1);
  CHECK(calls[0].page.md5 == webdb::Md5Of("Location: http://a.example/moved"));
  CHECK(calls[1].link->url == "http://a.example/moved");
  CHECK(calls[2].page.url == "http://a.example/moved");
  CHECK(f.stats.redirects == 1);
}

// Issue 36, item 12: an absent or empty Location resolved to the page itself, and the
// redirect stored a link from the page to itself.
TEST_CASE("a redirect without a Location has no outlink", "[update]") {
  for (const char* headers : {"", "Location:\r\n", "Location:   \r\n", "Location: \t\r\n"}) {
    INFO(headers);
    Fixture f;
    REQUIRE(f.Convert(Response("http://a.example/old", 302, headers, "")).ok());
    auto& calls = f.sink.calls;
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].op == Call::Op::kAddPage);
    CHECK(calls[0].page.num_outlinks == 0);
    CHECK(calls[0].page.md5 == webdb::Md5Of("Location: "));
    CHECK(f.stats.redirects == 1);
    CHECK(f.stats.links == 0);
  }
}

TEST_CASE("404 and 410 are never due again", "[update]") {
  Fixture f;
  REQUIRE(f.Convert(Response("http://a.example/gone", 410, "", "") +
                    Response("http://a.example/missing", 404, "Content-Type: text/html\r\n",
                             "<a href=x>x</a>"))
              .ok());
  REQUIRE(f.sink.calls.size() == 2);
  for (const Call& c : f.sink.calls) {
    CHECK(c.op == Call::Op::kAddPage);
    CHECK(c.page.next_fetch == std::numeric_limits<int64_t>::max());
    CHECK(c.page.md5 == webdb::Md5Of(c.page.url));
    CHECK(c.page.num_outlinks == 0);
  }
  CHECK(f.stats.gone == 2);
}

TEST_CASE("other failures are retried, then deleted", "[update]") {
  Fixture f;
  webdb::Page tired = webdb::Page::WithDefaults("http://a.example/tired");
  tired.retries = 3;
  webdb::Page flaky = webdb::Page::WithDefaults("http://a.example/flaky");
  flaky.retries = 1;
  flaky.md5 = webdb::Md5Of("old content");
  f.db[tired.url] = tired;
  f.db[flaky.url] = flaky;
  REQUIRE(f.Convert(Response("http://a.example/flaky", 503, "", "") +
                    Response("http://a.example/tired", 500, "", "") +
                    Response("http://a.example/new", 403, "", ""))
              .ok());
  auto& calls = f.sink.calls;
  REQUIRE(calls.size() == 3);
  CHECK(calls[0].page.retries == 2);
  CHECK(calls[0].page.md5 == flaky.md5);
  CHECK(calls[0].page.next_fetch == kDate + kDay);
  CHECK(calls[1].op == Call::Op::kDeletePage);
  CHECK(calls[1].url == "http://a.example/tired");
  CHECK(calls[2].page.retries == 1);
  CHECK(f.stats.failures == 3);
  CHECK(f.stats.deleted == 1);
}

TEST_CASE("revisits and 304 move nextFetch only, other records are counted", "[update]") {
  Fixture f;
  webdb::Page known = webdb::Page::WithDefaults("http://a.example/k");
  known.md5 = webdb::Md5Of("content");
  known.num_outlinks = 4;
  f.db[known.url] = known;
  webdb::Page known2 = known;
  known2.url = "http://a.example/k2";
  f.db[known2.url] = known2;
  REQUIRE(f.Convert(WarcRecordText("warcinfo", "", "x") +
                    WarcRecordText("request", "http://a.example/k", "GET") +
                    WarcRecordText("revisit", "http://a.example/k", "HTTP/1.1 200 OK\r\n\r\n") +
                    WarcRecordText("revisit", "http://a.example/unknown", "") +
                    Response("http://a.example/k2", 304, "", "") +
                    WarcRecordText("metadata", "http://a.example/k", "m") +
                    WarcRecordText("resource", "dns:a.example", "1.2.3.4") +
                    WarcRecordText("response", "dns:a.example", "1.2.3.4"))
              .ok());
  REQUIRE(f.sink.calls.size() == 2);
  for (const Call& c : f.sink.calls) {
    webdb::Page want = c.page.url == known.url ? known : known2;
    want.next_fetch = kDate + 30 * kDay;
    CHECK(c.page == want);
  }
  CHECK(f.sink.calls[1].page.url == known2.url);
  CHECK(f.stats.revisits == 2);
  CHECK(f.stats.skipped == std::map<std::string, uint64_t>{{"metadata", 1},
                                                           {"request", 1},
                                                           {"resource", 1},
                                                           {"response of a non-http URI", 1},
                                                           {"revisit of unknown page", 1},
                                                           {"warcinfo", 1}});
}

TEST_CASE("bad records: error with file and offset, or skipped and counted", "[update]") {
  std::string good = Response("http://a.example/", 200, "Content-Type: text/plain\r\n", "x");
  std::string bad = WarcRecordText("response", "http://a.example/b", "NOT HTTP");
  std::string text = good + bad + good;
  Fixture f;
  Status st = f.Convert(text);
  REQUIRE(st.IsCorruption());
  CHECK(st.message() == f.path + ": record at offset " + std::to_string(good.size()) +
                            ": bad HTTP status line 'NOT HTTP'");
  Fixture skip;
  skip.options.skip_bad = true;
  REQUIRE(skip.Convert(text + text.substr(0, 50)).ok());
  CHECK(skip.stats.bad_records == 2);  // the bad record and the truncated tail
  CHECK(skip.sink.calls.size() == 1);  // the second good record is about the same url
  CHECK(skip.stats.skipped.at("url answered by an earlier record") == 1);
  Fixture bad_first;  // a bad record answers nothing: the next record about its url decides
  bad_first.options.skip_bad = true;
  REQUIRE(bad_first.Convert(bad + WarcRecordText("response", "http://a.example/b",
                                                 HttpText(200, "", "y")))
              .ok());
  CHECK(bad_first.sink.calls.size() == 1);
  Fixture bad_uri;
  CHECK(bad_uri.Convert(Response("http://exa mple.com/", 200, "", "")).IsCorruption());
}

// Issue 36, item 14: the first response won the page, but the later ones' links still
// made pages of their targets.
TEST_CASE("the first record about a url decides, later ones make no calls", "[update]") {
  Fixture f;
  const std::string html = "Content-Type: text/html\r\n";
  REQUIRE(f.Convert(Response("http://a.example/", 200, html, "<a href=/first>1</a>") +
                    Response("http://a.example/", 200, html, "<a href=/second>2</a>") +
                    Response("HTTP://A.example/#x", 301, "Location: /moved\r\n", "") +
                    WarcRecordText("revisit", "http://a.example/", "") +
                    Response("http://a.example/", 500, "", ""))
              .ok());
  auto& calls = f.sink.calls;
  REQUIRE(calls.size() == 3);
  CHECK(calls[0].page.md5 == webdb::Md5Of("<a href=/first>1</a>"));
  CHECK(calls[1].link->url == "http://a.example/first");
  CHECK(calls[2].page.url == "http://a.example/first");
  for (const Call& c : calls) {
    CHECK(c.page.url != "http://a.example/second");
    CHECK(c.page.url != "http://a.example/moved");
  }
  CHECK(f.stats.html_pages == 1);
  CHECK(f.stats.redirects == 0);
  CHECK(f.stats.failures == 0);
  CHECK(f.stats.skipped.at("url answered by an earlier record") == 4);
}

TEST_CASE("a record whose digest does not match is bad input, or skipped and counted",
          "[update]") {
  std::string good = Response("http://a.example/", 200, "Content-Type: text/plain\r\n", "x");
  good = testutil::WithWarcHeader(good, "WARC-Payload-Digest", testutil::Sha1Digest("x"));
  std::string bad = testutil::WithWarcHeader(
      Response("http://a.example/b", 200, "Content-Type: text/plain\r\n", "y"),
      "WARC-Block-Digest", testutil::Sha1Digest("not the block"));
  std::string other = Response("http://a.example/c", 200, "Content-Type: text/plain\r\n", "x");
  other = testutil::WithWarcHeader(other, "WARC-Payload-Digest", testutil::Sha1Digest("x"));
  const std::string text = good + bad + other;
  Fixture f;
  Status st = f.Convert(text);
  REQUIRE(st.IsCorruption());
  CHECK_THAT(st.message(), Catch::StartsWith(f.path + ": record at offset " +
                                             std::to_string(good.size()) +
                                             ": WARC-Block-Digest sha1:"));
  Fixture skip;
  skip.options.skip_bad = true;
  REQUIRE(skip.Convert(text).ok());
  CHECK(skip.stats.bad_records == 1);
  CHECK(skip.sink.calls.size() == 2);  // the two good records
}

TEST_CASE("fetch list URLs without a record are network failures", "[update]") {
  Fixture f;
  f.options.retry_delay_ms = 5 * kDay;
  webdb::Page tired = webdb::Page::WithDefaults("http://a.example/tired");
  tired.retries = 3;
  webdb::Page flaky = webdb::Page::WithDefaults("http://a.example/flaky");
  flaky.retries = 1;
  flaky.score = 7;
  f.db[tired.url] = tired;
  f.db[flaky.url] = flaky;
  // The latest WARC-Date of any record dates the failures, the warcinfo's here.
  std::string warc =
      Response("http://a.example/ok", 200, "Content-Type: text/plain\r\n", "x") +
      WarcRecordText("revisit", "http://a.example/same", "", "2026-01-02T03:04:05Z") +
      Response("http://a.example/err", 500, "", "") +
      WarcRecordText("request", "http://a.example/flaky", "GET") +
      WarcRecordText("warcinfo", "", "software: wget", "2026-01-02T03:04:06Z");
  REQUIRE(f.Convert(warc,
                    "HTTP://A.example/ok#x\nhttp://a.example/same\nhttp://a.example/err\n"
                    "# comment\nhttp://a.example/flaky\nhttp://a.example/tired\n"
                    "http://a.example/./flaky\nhttp://dns-failure.example/\n")
              .ok());
  auto& calls = f.sink.calls;
  REQUIRE(calls.size() == 5);  // ok, err, then flaky, tired, dns-failure
  CHECK(calls[0].page.url == "http://a.example/ok");
  CHECK(calls[1].page.url == "http://a.example/err");
  CHECK(calls[1].page.next_fetch == kDate + 5 * kDay);
  webdb::Page want = flaky;
  want.retries = 2;
  want.next_fetch = kDate + 1000 + 5 * kDay;
  CHECK(calls[2].op == Call::Op::kAddPage);
  CHECK(calls[2].page == want);
  CHECK(calls[3].op == Call::Op::kDeletePage);
  CHECK(calls[3].url == "http://a.example/tired");
  CHECK(calls[4].op == Call::Op::kAddPage);
  CHECK(calls[4].page.url == "http://dns-failure.example/");
  CHECK(calls[4].page.retries == 1);
  CHECK(f.stats.failures == 1);
  CHECK(f.stats.network_failures == 3);
  CHECK(f.stats.deleted == 1);
}

TEST_CASE("fetch list: no dated record, bad lines", "[update]") {
  Fixture f;
  REQUIRE(f.Convert("", "http://a.example/\n").ok());
  REQUIRE(f.sink.calls.size() == 1);
  CHECK(f.sink.calls[0].page.next_fetch == Fixture::kNow + kDay);
  Fixture bad;
  Status st = bad.Convert("", "http://a.example/\nftp://b.example/\n");
  CHECK(st.IsInvalidArgument());
  CHECK(st.message().find("list:2: not an http or https URL") != std::string::npos);
  Fixture skip;
  skip.options.skip_bad = true;
  REQUIRE(skip.Convert("", "ftp://b.example/\nhttp://a.example/\n").ok());
  CHECK(skip.stats.bad_records == 1);
  CHECK(skip.stats.network_failures == 1);
}

}  // namespace
}  // namespace crawl
