// Hand-written sessions with known results for every rule of spec/webdb-semantics.md
// section 4 and every defect of section 7, run on the Model (checked against the
// expected result written here) and on the real writer (checked against the Model).
#include <catch2/catch.hpp>

#include "test/util/model_db.h"

namespace testutil {
namespace {

using webdb::Link;
using webdb::Md5;
using webdb::Page;

Md5 M(std::string_view content) { return webdb::Md5Of(content); }

Page P(std::string url, std::string_view content, int32_t outlinks = 0, float score = 1.0f) {
  Page p = Page::WithDefaults(std::move(url));
  p.md5 = M(content);
  p.num_outlinks = outlinks;
  p.score = score;
  p.next_score = score;
  return p;
}

Link L(std::string_view from_content, std::string url, std::string anchor = "") {
  Link l;
  l.from = M(from_content);
  l.url = std::move(url);
  l.anchor = std::move(anchor);
  return l;
}

// Applies the session to both and requires the db to equal the model.
void Run(ModelDb& db, const Session& s) {
  INFO(FormatSession(s));
  webdb::Status st = db.Apply(s);
  INFO("writer: " << st.ToString());
  REQUIRE(st.ok());
  std::string diff = db.Check();
  INFO(diff);
  REQUIRE(diff.empty());
}

const Page& PageAt(const ModelDb& db, const std::string& url) {
  auto it = db.model().pages().find(url);
  INFO("url " << url);
  REQUIRE(it != db.model().pages().end());
  return it->second;
}

bool HasLink(const ModelDb& db, std::string_view from_content, const std::string& url) {
  return db.model().links().count({M(from_content), url}) > 0;
}

// The four ranks; every ordered pair of page calls on one url, with and without a page
// there before the session.
Call CallOfRank(int rank, const Page& p) {
  switch (rank) {
    case 0:
      return AddPageCall(p);
    case 1:
      return AddPageWithScoreCall(p);
    case 2:
      return AddPageIfNotPresentCall(p, L("src", p.url, "apinp-" + std::to_string(rank)));
    default:
      return DeletePageCall(p.url);
  }
}

TEST_CASE("model: page winner is the lowest rank, then the earliest call") {
  for (bool present : {false, true}) {
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b) {
        CAPTURE(present, a, b);
        ModelDb db;
        Run(db, {AddPageCall(P("src", "src", 1))});
        if (present) Run(db, {AddPageWithScoreCall(P("u", "old", 0, 9.0f))});
        Page pa = P("u", "first", 3, 2.0f), pb = P("u", "second", 4, 3.0f);
        Run(db, {CallOfRank(a, pa), CallOfRank(b, pb)});
        int winner = a <= b ? a : b;
        const Page& expected_input = a <= b ? pa : pb;
        auto got = db.model().GetPage("u");
        if (winner == 3) {
          CHECK(!got);
        } else if (winner == 2 && present) {
          REQUIRE(got);
          CHECK(got->md5 == M("old"));  // addPageIfNotPresent on a present page: nothing
        } else {
          REQUIRE(got);
          CHECK(got->md5 == expected_input.md5);
          CHECK(got->score == ((winner == 0 && present) ? 9.0f : expected_input.score));
        }
        CHECK(HasLink(db, "src", "u") == (winner == 2 && !present));
      }
    }
  }
}

TEST_CASE("model: addPage keeps score and nextScore, addPageWithScore takes them") {
  ModelDb db;
  Page a = P("a", "a", 0, 5.0f), b = P("b", "b", 0, 5.0f);
  a.next_score = 6.0f;
  b.next_score = 6.0f;
  Run(db, {AddPageWithScoreCall(a), AddPageWithScoreCall(b)});
  Page a2 = P("a", "a2", 2, 7.0f), b2 = P("b", "b2", 2, 7.0f), c = P("c", "c", 0, 8.0f);
  Run(db, {AddPageCall(a2), AddPageWithScoreCall(b2), AddPageCall(c)});
  CHECK(PageAt(db, "a").score == 5.0f);
  CHECK(PageAt(db, "a").next_score == 6.0f);
  CHECK(PageAt(db, "a").md5 == M("a2"));
  CHECK(PageAt(db, "a").num_outlinks == 2);
  CHECK(PageAt(db, "b").score == 7.0f);
  CHECK(PageAt(db, "c").score == 8.0f);  // new page: its own score
}

TEST_CASE("model: addPageIfNotPresent and its link") {
  ModelDb db;
  Run(db, {AddPageCall(P("src", "src", 2)), AddPageCall(P("here", "here-old", 1))});
  Run(db, {AddPageIfNotPresentCall(P("here", "here-new"), L("src", "here", "x")),
           AddPageIfNotPresentCall(P("new", "new"), L("src", "new", "y")),
           AddPageIfNotPresentCall(P("plain", "plain"))});
  CHECK(PageAt(db, "here").md5 == M("here-old"));
  CHECK(PageAt(db, "new").md5 == M("new"));
  CHECK(PageAt(db, "plain").md5 == M("plain"));
  CHECK(!HasLink(db, "src", "here"));
  CHECK(HasLink(db, "src", "new"));
  // Lost to an addPage on the same url: no link, though the page is inserted.
  Run(db, {AddPageIfNotPresentCall(P("lost", "lost"), L("src", "lost")),
           AddPageCall(P("lost", "lost2"))});
  CHECK(PageAt(db, "lost").md5 == M("lost2"));
  CHECK(!HasLink(db, "src", "lost"));
}

TEST_CASE("model: last link addition wins, addPageIfNotPresent links come last, by url") {
  ModelDb db;
  Run(db, {AddPageCall(P("src", "src", 1)), AddPageCall(P("t", "t"))});
  Run(db, {AddLinkCall(L("src", "t", "one")), AddLinkCall(L("src", "t", "two"))});
  CHECK(db.model().links().at({M("src"), "t"}).anchor == "two");
  // The addPageIfNotPresent link is added after every addLink, whatever the call order.
  Run(db, {AddPageIfNotPresentCall(P("u2", "u2"), L("src", "t", "from-u2")),
           AddPageIfNotPresentCall(P("u1", "u1"), L("src", "t", "from-u1")),
           AddLinkCall(L("src", "t", "addLink"))});
  CHECK(db.model().links().at({M("src"), "t"}).anchor == "from-u2");  // u2 sorts after u1
}

TEST_CASE("model: source rule drops links from content no page has") {
  ModelDb db;
  Run(db, {AddPageCall(P("t", "t", 1)), AddLinkCall(L("nobody", "t"))});  // section 7.2
  CHECK(db.model().links().empty());
  // Content added in the same session as its links: kept.
  Run(db, {AddLinkCall(L("fresh", "t")), AddPageCall(P("f", "fresh"))});
  CHECK(HasLink(db, "fresh", "t"));
  // Refetched with new content: the old content's outlinks go.
  Run(db, {AddPageCall(P("f", "fresh2"))});
  CHECK(db.model().links().empty());
}

TEST_CASE("model: shared md5 keeps links until its last page goes (7.1)") {
  ModelDb db;
  Run(db, {AddPageCall(P("a", "shared")), AddPageCall(P("b", "shared")), AddPageCall(P("t", "t")),
           AddLinkCall(L("shared", "t"))});
  Run(db, {DeletePageCall("a")});
  CHECK(HasLink(db, "shared", "t"));  // b still has it
  Run(db, {AddPageCall(P("a", "shared"))});
  Run(db, {DeletePageCall("a"), DeletePageCall("b")});  // all pages with it together
  CHECK(!HasLink(db, "shared", "t"));
  // Last page with an md5 removed while another url gets it in the same session: kept.
  Run(db, {AddPageCall(P("c", "solo")), AddLinkCall(L("solo", "t"))});
  Run(db, {DeletePageCall("c"), AddPageCall(P("d", "solo"))});
  CHECK(HasLink(db, "solo", "t"));
  Run(db, {AddPageCall(P("d", "other")), AddPageWithScoreCall(P("e", "solo"))});
  CHECK(HasLink(db, "solo", "t"));
}

TEST_CASE("model: target rule drops dangling links and sets flags in every session (7.3)") {
  ModelDb db;
  Link flagged = L("src", "t");
  flagged.target_has_outlink = true;  // input flag is ignored
  Run(db, {AddPageCall(P("src", "src", 3)), AddPageCall(P("t", "t", 0)), AddLinkCall(flagged),
           AddLinkCall(L("src", "missing")),
           AddLinkCall(L("src",
                         "\xff\xff"
                         "after-all")),
           AddLinkCall(L("src", "src"))});
  REQUIRE(db.model().links().size() == 2);
  CHECK(!db.model().links().at({M("src"), "t"}).target_has_outlink);
  CHECK(db.model().links().at({M("src"), "src"}).target_has_outlink);
  // A page-only session flips the flag.
  Run(db, {AddPageCall(P("t", "t", 5))});
  CHECK(db.model().links().at({M("src"), "t"}).target_has_outlink);
  // Links to a deleted page go, whatever sorts after it.
  Run(db, {AddPageCall(P("\xff\xff"
                         "z",
                         "z")),
           AddLinkCall(L("src",
                         "\xff\xff"
                         "z"))});
  CHECK(HasLink(db, "src",
                "\xff\xff"
                "z"));
  Run(db, {DeletePageCall("\xff\xff"
                          "z"),
           DeletePageCall("t")});
  CHECK(db.model().links().size() == 1);
}

TEST_CASE("model: counts are the table sizes (7.4)") {
  ModelDb db;
  Run(db, {AddPageCall(P("a", "a", 1)), AddPageCall(P("b", "b", 1)), AddLinkCall(L("a", "b")),
           AddLinkCall(L("b", "a"))});
  Run(db, {AddLinkCall(L("a", "a"))});  // no page calls
  CHECK(db.model().ToDump().num_pages == 2);
  CHECK(db.model().ToDump().num_links == 3);
  Run(db, {});
  CHECK(db.model().ToDump().num_links == 3);
  Run(db, {DeletePageCall("a"), AddLinkCall(L("a", "b"))});  // deleted link re-added
  CHECK(db.model().ToDump().num_pages == 1);
  CHECK(db.model().ToDump().num_links == 0);
}

TEST_CASE("model: the db stores bytes as given (7.7)") {
  ModelDb db;
  std::string upper = "HTTP://Example.COM/a/../b ";
  std::string bmp = "http://u/\xef\xbf\xbd", astral = "http://u/\xf0\x9f\x98\x80";
  Link long_anchor = L("x", upper, std::string(webdb::kMaxAnchorLength, '\xff'));
  Page p = P(upper, "x");
  Run(db, {AddPageCall(p), AddPageCall(P(astral, "x")), AddPageCall(P(bmp, "x")),
           AddLinkCall(long_anchor)});
  CHECK(PageAt(db, upper).next_fetch == 0);
  CHECK(db.model().links().at({M("x"), upper}).anchor.size() == webdb::kMaxAnchorLength);
  auto pages = db.model().PagesByUrl();
  REQUIRE(pages.size() == 3);
  CHECK(pages[1].url == bmp);  // UTF-8 byte order: U+FFFD before U+1F600
  CHECK(pages[2].url == astral);
}

TEST_CASE("model: duplicate resolution does not depend on sort runs (7.6)") {
  Session s;
  for (int i = 0; i < 300; ++i) {
    std::string url = "u" + std::to_string(i % 7);
    s.push_back(CallOfRank(i % 4, P(url, "c" + std::to_string(i), i % 3, float(i))));
    s.push_back(AddLinkCall(L("c" + std::to_string(i % 5), url, "a" + std::to_string(i))));
  }
  ModelDb big;
  Run(big, s);
  webdb::WriterOptions tiny;
  tiny.memory_budget = 4 << 10;
  ModelDb small(tiny);
  Run(small, s);
}

TEST_CASE("model: dump checks report what is wrong") {
  Model model;
  model.Apply({AddPageCall(P("a", "a", 1)), AddPageCall(P("b", "b", 0)), AddLinkCall(L("a", "b")),
               AddLinkCall(L("b", "a"))});
  const DbDump good = model.ToDump();
  REQUIRE(CheckInvariants(good).empty());
  REQUIRE(CompareDumps(good, good).empty());

  DbDump d = good;
  d.links_by_url[0].anchor = "changed";
  CHECK_THAT(CompareDumps(good, d), Catch::StartsWith("linksByURL differs at index 0"));
  CHECK_THAT(CheckInvariants(d), Catch::Contains("invariant 1"));
  d = good;
  d.pages_by_md5.pop_back();
  CHECK_THAT(CompareDumps(good, d), Catch::Contains("<end>"));
  d = good;
  std::swap(d.pages_by_url[0], d.pages_by_url[1]);
  CHECK_THAT(CheckInvariants(d), Catch::Contains("not strictly ordered"));
  d = good;
  for (auto* table : {&d.links_by_md5, &d.links_by_url}) {
    for (Link& l : *table) l.target_has_outlink |= l.url == "b";  // b has no outlinks
  }
  CHECK_THAT(CheckInvariants(d), Catch::Contains("invariant 4"));
  d = good;
  d.num_links = 7;
  CHECK_THAT(CompareDumps(good, d), Catch::Contains("counts differ"));
  CHECK_THAT(CheckInvariants(d), Catch::Contains("invariant 5"));
  Model refetched = model;
  refetched.Apply({AddPageCall(P("a", "z", 1))});
  d = refetched.ToDump();
  d.links_by_md5 = good.links_by_md5;  // keeps the link from the content "a" no page has
  d.links_by_url = good.links_by_url;
  d.num_links = good.num_links;
  CHECK_THAT(CheckInvariants(d), Catch::Contains("invariant 2"));
  d = good;
  for (auto* table : {&d.links_by_md5, &d.links_by_url}) {
    for (Link& l : *table) l.url = l.url == "b" ? "c" : l.url;  // order kept, no page "c"
  }
  CHECK_THAT(CheckInvariants(d), Catch::Contains("invariant 3"));
}

}  // namespace
}  // namespace testutil
