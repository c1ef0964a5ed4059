// webdb::Explain on a small db: page, shared md5, outlinks, inlinks, due and rank.
#include "webdb/inspect/explain.h"

#include <catch2/catch.hpp>

#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/versions.h"
#include "webdb/db/writer.h"

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

// A db holding one session, open for reading.
struct SessionDb {
  explicit SessionDb(const testutil::Session& s) : env(nutchfs::NewLocalEnv()) {
    const std::string dir = tmp.File("db");
    REQUIRE(Writer::Create(*env, dir).ok());
    REQUIRE(testutil::RunSession(*env, dir, s, {}).ok());
    auto opened = Reader::Open(*env, dir);
    REQUIRE(opened.has_value());
    reader = std::move(*opened);
  }
  testutil::TempDir tmp;
  std::unique_ptr<nutchfs::Env> env;
  std::unique_ptr<Reader> reader;
};

TEST_CASE("explain gathers a url's page, neighbours and generate rank", "[explain]") {
  const SessionDb db({
      testutil::AddPageWithScoreCall(MakePage("http://a/", "A", 2, 0, 1)),
      testutil::AddPageWithScoreCall(MakePage("http://b/", "B", 5, 0, 0)),
      testutil::AddPageWithScoreCall(MakePage("http://c/", "A", 2, 0, 0)),
      testutil::AddPageWithScoreCall(MakePage("http://d/", "D", 9, 1000, 1)),
      testutil::AddLinkCall(MakeLink("A", "http://b/")),
      testutil::AddLinkCall(MakeLink("B", "http://c/")),
      testutil::AddLinkCall(MakeLink("D", "http://c/")),
  });
  const Reader& reader = *db.reader;

  auto c = Explain(reader, "http://c/", 10);
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

  auto d = Explain(reader, "http://d/", 10);
  REQUIRE(d.has_value());
  CHECK_FALSE(d->due);
  CHECK(d->rank == 0);

  auto none = Explain(reader, "http://none/", 10);
  REQUIRE(none.has_value());
  CHECK_FALSE(none->page.has_value());
  CHECK(none->inlinks.empty());
  CHECK(none->due_pages == 3);
}

// A db keeping 5 versions; sessions are applied one by one and each version can be
// opened for ExplainHistory.
struct History5 {
  History5() : env(nutchfs::NewLocalEnv()), dir(tmp.File("db")) {
    REQUIRE(Writer::Create(*env, dir, 5).ok());
  }
  void Apply(const testutil::Session& s) { REQUIRE(testutil::RunSession(*env, dir, s, {}).ok()); }
  History Of(std::string_view url) {
    auto list = ListVersions(*env, dir);
    REQUIRE(list.has_value());
    std::vector<KeptVersion> kept;
    readers.clear();
    for (auto v = list->versions.rbegin(); v != list->versions.rend(); ++v) {
      auto reader = Reader::Open(*env, dir, v->version);
      REQUIRE(reader.has_value());
      readers.push_back(std::move(*reader));
      kept.push_back({v->version, v->restores, readers.back().get()});
    }
    auto h = ExplainHistory(kept, url);
    REQUIRE(h.has_value());
    return *h;
  }
  testutil::TempDir tmp;
  std::unique_ptr<nutchfs::Env> env;
  std::string dir;
  std::vector<std::unique_ptr<Reader>> readers;
};

TEST_CASE("explain's history: a page deleted after failed fetches, its links by rule",
          "[explain]") {
  History5 db;  // version 1: empty
  Page a = MakePage("http://a/", "A", 1, 0, 1);
  db.Apply({testutil::AddPageCall(MakePage("http://b/", "B", 1, 0, 1))});  // 2: b, no a yet
  db.Apply({testutil::AddPageCall(a), testutil::AddLinkCall(MakeLink("A", "http://b/")),
            testutil::AddLinkCall(MakeLink("B", "http://a/"))});  // 3
  a.retries = 3;
  db.Apply({testutil::AddPageCall(a)});                       // 4: a failed 3 times
  db.Apply({testutil::DeletePageCall("http://a/")});          // 5: and is deleted
  History h = db.Of("http://a/");
  REQUIRE(h.versions.size() == 5);
  CHECK_FALSE(h.versions[1].page.has_value());
  CHECK(h.versions[3].page->retries == 3);
  CHECK(h.appeared == "in version 3");
  CHECK_THAT(h.removed, Catch::StartsWith("deletePage in the session that made version 5"));
  CHECK_THAT(h.removed, Catch::Contains("3 failed fetches"));
  // B -> a: the target rule; A -> b: the source rule (no page has content A).
  REQUIRE(h.gone_links.size() == 2);
  for (const GoneLink& g : h.gone_links) {
    CHECK(g.last_version == 4);
    CHECK(g.gone_in == 5);
    if (g.outlink) {
      CHECK(g.link.url == "http://b/");
      CHECK_THAT(g.why, Catch::StartsWith("source rule: no page has content " +
                                          Md5Hex(Md5Of("A"))));
    } else {
      CHECK(g.link.from == Md5Of("B"));
      CHECK(g.why == "target rule: no page at its url in version 5");
    }
  }
}

TEST_CASE("explain's history: new content, and a rollback", "[explain]") {
  History5 db;
  db.Apply({testutil::AddPageCall(MakePage("http://a/", "A", 1, 0, 1)),
            testutil::AddPageCall(MakePage("http://c/", "A", 1, 0, 1)),
            testutil::AddLinkCall(MakeLink("A", "http://c/"))});  // 2
  db.Apply({testutil::AddPageCall(MakePage("http://a/", "A2", 1, 0, 0))});  // 3
  History h = db.Of("http://a/");
  CHECK(h.appeared == "in version 2");
  CHECK(h.removed.empty());
  REQUIRE(h.gone_links.size() == 1);
  CHECK(h.gone_links[0].outlink);
  // The link of content A stays (c still has it), but it is not a's outlink any more.
  CHECK_THAT(h.gone_links[0].why, Catch::StartsWith("the page's content changed to " +
                                                     Md5Hex(Md5Of("A2")) + " in version 3"));
  REQUIRE(RollbackDb(*db.env, db.dir, 1, {}).has_value());  // 4: empty again
  h = db.Of("http://a/");
  CHECK(h.versions.back().restores == 1);
  CHECK(h.removed == "version 4 is a rollback to version 1, which had no page here");
}

TEST_CASE("explain lists what each linking content gives the page, largest first",
          "[explain]") {
  // Content A at two urls links to t and to a1 (a1's own url: a1's outdeg is 1, a2's 2);
  // B (one page, 4 links) and C (whose only page is t) link to t too.
  testutil::Session s = {
      testutil::AddPageWithScoreCall(MakePage("http://a1/", "A", 3, 0, 2)),
      testutil::AddPageWithScoreCall(MakePage("http://a2/", "A", 1, 0, 2)),
      testutil::AddPageWithScoreCall(MakePage("http://b/", "B", 8, 0, 4)),
      testutil::AddPageWithScoreCall(MakePage("http://t/", "C", 1, 0, 1)),
      testutil::AddLinkCall(MakeLink("A", "http://t/")),
      testutil::AddLinkCall(MakeLink("A", "http://a1/")),
      testutil::AddLinkCall(MakeLink("C", "http://t/")),
  };
  for (const char* u : {"http://t/", "http://a1/", "http://a2/", "http://b/"}) {
    s.push_back(testutil::AddLinkCall(MakeLink("B", u)));
  }
  const SessionDb db(s);
  auto t = Explain(*db.reader, "http://t/", 10);
  REQUIRE(t.has_value());
  REQUIRE(t->top_contributions.size() == 2);  // C's only page is t itself
  CHECK(t->top_contributions[0].from == Md5Of("A"));
  CHECK(t->top_contributions[0].pages == 2);
  CHECK(t->top_contributions[0].first_url == "http://a1/");
  CHECK(t->top_contributions[0].share == 3.0 / 1 + 1.0 / 2);
  CHECK(t->top_contributions[1].from == Md5Of("B"));
  CHECK(t->top_contributions[1].share == 8.0 / 3);  // b's own link dropped: outdeg 3

  auto a1 = Explain(*db.reader, "http://a1/", 10);
  REQUIRE(a1.has_value());
  REQUIRE(a1->top_contributions.size() == 2);
  CHECK(a1->top_contributions[0].from == Md5Of("B"));
  CHECK(a1->top_contributions[1].share == 1.0 / 2);  // a2 only: a1's own link is dropped
}

}  // namespace
}  // namespace webdb
