#include "crawl/url_list.h"

#include <catch2/catch.hpp>
#include <vector>

#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"

namespace crawl {
namespace {

struct Read {
  Status status;
  std::vector<std::string> urls;
  uint64_t bad = 0;
};

Read ReadText(const std::string& text, bool skip_bad) {
  testutil::TempDir dir;
  testutil::WriteFile(dir.File("list"), text);
  auto env = nutchfs::NewLocalEnv();
  Read r;
  r.status = ReadUrlList(*env, dir.File("list"), {skip_bad, &r.bad}, [&](std::string url) {
    r.urls.push_back(std::move(url));
    return Status::OK();
  });
  if (!r.status.ok()) {
    // Name the file by its last component so that expectations need no temp path.
    std::string m = r.status.message();
    r.status = Status::InvalidArgument(m.substr(m.find("list:")));
  }
  return r;
}

TEST_CASE("URL lists: one normalized URL a line, comments, blanks and white space", "[urllist]") {
  Read r = ReadText("# seeds\n\nHTTP://A.example\n   http://b.example/x/../y#frag  \r\n"
                    "  # indented comment\n\t\nhttps://c.example:443/",
                    false);
  REQUIRE(r.status.ok());
  CHECK(r.urls == std::vector<std::string>{"http://a.example/", "http://b.example/y",
                                           "https://c.example/"});
}

// Lines near the url limit (65535 bytes), so that most straddle a 64 KiB read.
TEST_CASE("URL lists: long lines across read boundaries, in order", "[urllist]") {
  std::string long_path(60000, 'p');
  std::string text;
  std::vector<std::string> want;
  for (int i = 0; i < 3; ++i) {
    want.push_back("http://a.example/" + std::to_string(i) + long_path);
    text += want.back() + "\n";
  }
  Read r = ReadText(text, false);
  REQUIRE(r.status.ok());
  CHECK(r.urls == want);
}

TEST_CASE("URL lists: a bad line is FILE:LINE: reason, or skipped and counted", "[urllist]") {
  std::string text = "http://a.example/\n\nftp://b.example/\nnot a url\nhttp://c.example/";
  Read strict = ReadText(text, false);
  REQUIRE(strict.status.IsInvalidArgument());
  CHECK(strict.status.message().rfind("list:3: not an http or https URL", 0) == 0);
  CHECK(strict.urls == std::vector<std::string>{"http://a.example/"});
  Read lenient = ReadText(text, true);
  REQUIRE(lenient.status.ok());
  CHECK(lenient.bad == 2);
  CHECK(lenient.urls == std::vector<std::string>{"http://a.example/", "http://c.example/"});
}

// Issue 36, item 20: a lone CR ended no line, so two lines became one url.
TEST_CASE("URL lists: lines end in LF, CRLF or a lone CR", "[urllist]") {
  for (const char* text : {"http://a.example/\rhttp://b.example/\r",
                           "http://a.example/\r\nhttp://b.example/",
                           "http://a.example/\n\rhttp://b.example/\r\n\r\n",
                           "http://a.example/\r\r\rhttp://b.example/\n"}) {
    INFO(text);
    Read r = ReadText(text, false);
    REQUIRE(r.status.ok());
    CHECK(r.urls == std::vector<std::string>{"http://a.example/", "http://b.example/"});
  }
  Read numbered = ReadText("http://a.example/\r\rftp://x/\r\n", false);
  REQUIRE_FALSE(numbered.status.ok());
  CHECK_THAT(numbered.status.message(), Catch::StartsWith("list:3: "));
}

// A CR and its LF in two reads of 64 KiB are one line end, not two.
TEST_CASE("URL lists: a CRLF split across reads ends one line", "[urllist]") {
  const std::string first = "http://a.example/" + std::string(65535 - 17, 'p');
  REQUIRE(first.size() == 65535);
  Read r = ReadText(first + "\r\nbad\n", false);
  REQUIRE_FALSE(r.status.ok());
  CHECK_THAT(r.status.message(), Catch::StartsWith("list:2: "));
}

// Issue 36, items 18 and 20: `URL # comment` became the url "URL%20"; a BOM made the
// first line an invalid URL.
TEST_CASE("URL lists: a comment after the URL, a BOM, white space inside", "[urllist]") {
  Read r = ReadText("\xEF\xBB\xBFhttp://a.example/\nhttp://b.example/ # the second seed\n"
                    "http://c.example/x\t#tab, then a comment\n",
                    false);
  REQUIRE(r.status.ok());
  CHECK(r.urls == std::vector<std::string>{"http://a.example/", "http://b.example/",
                                           "http://c.example/x"});
  Read bom_only = ReadText("\xEF\xBB\xBF\n# seeds\n", false);
  REQUIRE(bom_only.status.ok());
  CHECK(bom_only.urls.empty());
  Read two = ReadText("http://a.example/ http://b.example/\n", false);
  REQUIRE_FALSE(two.status.ok());
  CHECK_THAT(two.status.message(),
             Catch::StartsWith("list:1: ") && Catch::Contains("white space inside"));
  CHECK(ReadText("http://a.example/a%20b#frag\n", false).urls ==
        std::vector<std::string>{"http://a.example/a%20b"});
}

TEST_CASE("URL lists: an error of the callback stops the reading", "[urllist]") {
  testutil::TempDir dir;
  testutil::WriteFile(dir.File("list"), "http://a.example/\nhttp://b.example/\n");
  auto env = nutchfs::NewLocalEnv();
  int calls = 0;
  Status st = ReadUrlList(*env, dir.File("list"), {}, [&](std::string) {
    ++calls;
    return Status::IOError("sink full");
  });
  CHECK(st.IsIOError());
  CHECK(calls == 1);
  CHECK(ReadUrlList(*env, dir.File("absent"), {}, [](std::string) { return Status::OK(); })
            .IsNotFound());
}

}  // namespace
}  // namespace crawl
