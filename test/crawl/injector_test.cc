#include "crawl/injector.h"

#include <catch2/catch.hpp>
#include <vector>

#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"

namespace crawl {
namespace {

class UrlSink final : public webdb::CallSink {
 public:
  Status AddPage(const webdb::Page&) override { return Unexpected(); }
  Status AddPageWithScore(const webdb::Page&) override { return Unexpected(); }
  Status AddPageIfNotPresent(const webdb::Page& p) override {
    CHECK(p == webdb::Page::WithDefaults(p.url));
    urls.push_back(p.url);
    return Status::OK();
  }
  Status AddPageIfNotPresent(const webdb::Page&, const webdb::Link&) override {
    return Unexpected();
  }
  Status DeletePage(std::string_view) override { return Unexpected(); }
  Status AddLink(const webdb::Link&) override { return Unexpected(); }
  std::vector<std::string> urls;

 private:
  Status Unexpected() { return Status::InvalidArgument("unexpected call"); }
};

TEST_CASE("inject: one normalized URL a line, comments and blanks skipped", "[inject]") {
  testutil::TempDir dir;
  testutil::WriteFile(dir.File("seeds"),
                      "# seeds\n\nHTTP://A.example\n   http://b.example/x/../y#frag  \r\n"
                      "  # indented comment\nhttps://c.example:443/");
  auto env = nutchfs::NewLocalEnv();
  UrlSink sink;
  Injector injector({}, sink);
  REQUIRE(injector.AddFile(*env, dir.File("seeds")).ok());
  CHECK(sink.urls == std::vector<std::string>{"http://a.example/", "http://b.example/y",
                                              "https://c.example/"});
  CHECK(injector.stats().urls == 3);
}

TEST_CASE("inject: bad lines are FILE:LINE errors or skipped and counted", "[inject]") {
  testutil::TempDir dir;
  testutil::WriteFile(dir.File("seeds"), "http://a.example/\n\nftp://b.example/\nnot a url\n");
  auto env = nutchfs::NewLocalEnv();
  UrlSink sink;
  Injector strict({}, sink);
  Status st = strict.AddFile(*env, dir.File("seeds"));
  REQUIRE(st.IsInvalidArgument());
  CHECK(st.message().rfind(dir.File("seeds") + ":3: not an http or https URL", 0) == 0);
  UrlSink sink2;
  InjectOptions options;
  options.skip_bad = true;
  Injector lenient(options, sink2);
  REQUIRE(lenient.AddFile(*env, dir.File("seeds")).ok());
  CHECK(lenient.stats().bad == 2);
  CHECK(sink2.urls == std::vector<std::string>{"http://a.example/"});
}

TEST_CASE("inject: the filter", "[inject]") {
  auto filter = UrlFilter::Parse("-/private/\n+^http://a\\.example/\n", "f");
  REQUIRE(filter);
  InjectOptions options;
  options.filter = &*filter;
  UrlSink sink;
  Injector injector(options, sink);
  for (const char* url : {"http://a.example/x", "http://a.example/private/y", "http://b.example/"}) {
    REQUIRE(injector.AddUrl(url).ok());
  }
  CHECK(sink.urls == std::vector<std::string>{"http://a.example/x"});
  CHECK(injector.stats().filtered == 2);
}

}  // namespace
}  // namespace crawl
