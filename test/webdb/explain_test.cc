// webdb::Explain on a small db: page, shared md5, outlinks, inlinks, due and rank.
#include "webdb/explain.h"

#include <catch2/catch.hpp>

#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/writer.h"

namespace webdb {
namespace {

Page MakePage(std::string url, std::string_view content, float score, int64_t next_fetch,
              int32_t outlinks) {
  Page p = Page::WithDefaults(std::move(url));
  p.md5 = Md5Of(content);
  p.score = score;
  p.next_fetch = next_fetch;
  p.num_outlinks = outlinks;
  return p;
}

Link MakeLink(std::string_view content, std::string url) {
  Link l;
  l.from = Md5Of(content);
  l.url = std::move(url);
  return l;
}

TEST_CASE("explain gathers a url's page, neighbours and generate rank", "[explain]") {
  testutil::TempDir tmp;
  auto env = nutchfs::NewLocalEnv();
  const std::string dir = tmp.File("db");
  REQUIRE(Writer::Create(*env, dir).ok());
  testutil::Session s = {
      testutil::AddPageWithScoreCall(MakePage("http://a/", "A", 2, 0, 1)),
      testutil::AddPageWithScoreCall(MakePage("http://b/", "B", 5, 0, 0)),
      testutil::AddPageWithScoreCall(MakePage("http://c/", "A", 2, 0, 0)),
      testutil::AddPageWithScoreCall(MakePage("http://d/", "D", 9, 1000, 1)),
      testutil::AddLinkCall(MakeLink("A", "http://b/")),
      testutil::AddLinkCall(MakeLink("B", "http://c/")),
      testutil::AddLinkCall(MakeLink("D", "http://c/")),
  };
  REQUIRE(testutil::RunSession(*env, dir, s, {}).ok());
  auto reader = Reader::Open(*env, dir);
  REQUIRE(reader.has_value());

  auto c = Explain(**reader, "http://c/", 10);
  REQUIRE(c.has_value());
  REQUIRE(c->page.has_value());
  CHECK(c->page->url == "http://c/");
  REQUIRE(c->same_md5.size() == 1);
  CHECK(c->same_md5[0].url == "http://a/");
  REQUIRE(c->outlinks.size() == 1);
  CHECK(c->outlinks[0].url == "http://b/");
  CHECK(c->inlinks.size() == 2);
  CHECK(c->due);
  CHECK(c->due_pages == 3);
  CHECK(c->rank == 3);  // b (5), a (2, "http://a/" < "http://c/"), c

  auto d = Explain(**reader, "http://d/", 10);
  REQUIRE(d.has_value());
  CHECK_FALSE(d->due);
  CHECK(d->rank == 0);

  auto none = Explain(**reader, "http://none/", 10);
  REQUIRE(none.has_value());
  CHECK_FALSE(none->page.has_value());
  CHECK(none->inlinks.empty());
  CHECK(none->due_pages == 3);
}

}  // namespace
}  // namespace webdb
