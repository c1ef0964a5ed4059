// Each merge stage alone, on hand-made streams: every row of the semantics' case table.
#include <catch2/catch.hpp>

#include "test/util/row_util.h"
#include "webdb/stages/stage_edits.h"
#include "webdb/stages/stages.h"

namespace {

using testutil::EditCollector;
using testutil::NewVectorEditIterator;
using testutil::NewVectorIterator;
using testutil::OwnedEdit;
using testutil::RowCollector;
using testutil::Rows;
using namespace webdb;

Page MakePage(const std::string& url, char content, int outlinks = 0, float score = 1.0f) {
  Page p = Page::WithDefaults(url);
  p.md5 = Md5Of(std::string(1, content));
  p.num_outlinks = outlinks;
  p.score = score;
  p.next_score = score;
  return p;
}

Link MakeLink(char from_content, const std::string& url, bool flag = false) {
  Link l;
  l.from = Md5Of(std::string(1, from_content));
  l.url = url;
  l.anchor = "a";
  l.target_has_outlink = flag;
  return l;
}

std::pair<std::string, std::string> PageRow(const Page& p) {
  std::string v;
  EncodePageByUrlValue(p, &v);
  return {p.url, v};
}

std::pair<std::string, std::string> PageMd5Row(const Page& p) {
  std::string v;
  EncodePageByMd5Value(p, &v);
  return {PageMd5Key(p.md5, p.url), v};
}

std::pair<std::string, std::string> LinkMd5Row(const Link& l) {
  std::string v;
  EncodeLinkValue(l, &v);
  return {LinkMd5Key(l.from, l.url), v};
}

std::pair<std::string, std::string> LinkUrlRow(const Link& l) {
  std::string v;
  EncodeLinkValue(l, &v);
  return {LinkUrlKey(l.url, l.from), v};
}

OwnedEdit PageEdit(PageOp op, const Page& p, uint64_t order, const Link* link = nullptr) {
  std::string v;
  if (op != kDeletePage) EncodePageCall(p, link, &v);
  return {p.url, order, op, v};
}

struct Stage1Result {
  RowCollector table;
  EditCollector to_md5, to_links;
  StageStats stats;
};

Stage1Result RunStage1(Rows old, std::vector<OwnedEdit> edits) {
  Stage1Result r;
  auto rows = NewVectorIterator(std::move(old));
  auto it = NewVectorEditIterator(testutil::StableSorted(std::move(edits)));
  auto stats = ApplyPagesByUrl(*rows, *it, 2, {&r.table, &r.to_md5, &r.to_links});
  REQUIRE(stats);
  r.stats = *stats;
  return r;
}

Page DecodedPage(const std::pair<std::string, std::string>& row) {
  auto p = DecodePageByUrl(row.first, row.second);
  REQUIRE(p);
  return *p;
}

}  // namespace

TEST_CASE("stage 1: addPage keeps the old scores, addPageWithScore takes the new ones") {
  Page old = MakePage("http://a/", 'x', 0, 7.0f);
  Page fresh = MakePage("http://a/", 'y', 3, 2.0f);
  auto keep = RunStage1({PageRow(old)}, {PageEdit(kAddPage, fresh, 1)});
  REQUIRE(keep.table.rows.size() == 1);
  Page got = DecodedPage(keep.table.rows[0]);
  CHECK(got.score == 7.0f);
  CHECK(got.next_score == 7.0f);
  CHECK(got.num_outlinks == 3);
  CHECK(got.md5 == fresh.md5);
  // md5 changed: remove the old pagesByMD5 row, put the new one; outlink status flipped.
  REQUIRE(keep.to_md5.edits.size() == 2);
  CHECK(keep.stats.notices == 1);

  auto take = RunStage1({PageRow(old)}, {PageEdit(kAddPageWithScore, fresh, 1)});
  CHECK(DecodedPage(take.table.rows[0]) == fresh);
}

TEST_CASE("stage 1: addPageIfNotPresent inserts only absent pages, with their link") {
  Page present = MakePage("http://a/", 'x');
  Page absent = MakePage("http://b/", 'y');
  Link la = MakeLink('x', "http://c/"), lb = MakeLink('y', "http://d/");
  auto r = RunStage1({PageRow(present)}, {PageEdit(kAddPageIfNotPresent, MakePage("http://a/", 'z'), 0, &la),
                                          PageEdit(kAddPageIfNotPresent, absent, 1, &lb)});
  REQUIRE(r.table.rows.size() == 2);
  CHECK(DecodedPage(r.table.rows[0]) == present);
  CHECK(DecodedPage(r.table.rows[1]) == absent);
  REQUIRE(r.to_links.edits.size() == 1);
  CHECK(r.to_links.edits[0].key == LinkMd5Key(lb.from, lb.url));
  CHECK(r.to_links.edits[0].order == InsertedLinkOrder(2, 0));
  REQUIRE(r.to_md5.edits.size() == 1);
  CHECK(r.to_md5.edits[0].kind == kPut);
  CHECK(r.stats.notices == 1);  // b gained a page
}

TEST_CASE("stage 1: the lowest kind wins, then the earliest call") {
  Page p1 = MakePage("http://a/", '1'), p2 = MakePage("http://a/", '2');
  // deletePage (kind 3) loses to addPage (kind 0) whatever the order.
  auto r = RunStage1({}, {PageEdit(kDeletePage, p1, 0), PageEdit(kAddPage, p2, 5)});
  REQUIRE(r.table.rows.size() == 1);
  CHECK(DecodedPage(r.table.rows[0]).md5 == p2.md5);
  // Two addPage calls: the earliest wins.
  r = RunStage1({}, {PageEdit(kAddPage, p2, 9), PageEdit(kAddPage, p1, 3)});
  CHECK(DecodedPage(r.table.rows[0]).md5 == p1.md5);
  // addPageWithScore (1) beats addPageIfNotPresent (2).
  r = RunStage1({}, {PageEdit(kAddPageIfNotPresent, p1, 0), PageEdit(kAddPageWithScore, p2, 1)});
  CHECK(DecodedPage(r.table.rows[0]).md5 == p2.md5);
}

TEST_CASE("stage 1: deletePage removes present pages and ignores absent ones") {
  Page a = MakePage("http://a/", 'x', 2);
  auto r = RunStage1({PageRow(a)}, {PageEdit(kDeletePage, a, 0),
                                    PageEdit(kDeletePage, MakePage("http://z/", 'q'), 1)});
  CHECK(r.table.rows.empty());
  REQUIRE(r.to_md5.edits.size() == 1);
  CHECK(r.to_md5.edits[0].kind == kRemove);
  CHECK(r.to_md5.edits[0].key == PageMd5Key(a.md5, a.url));
  CHECK(r.stats.notices == 1);
  CHECK(r.stats.rows_out == 0);
}

TEST_CASE("stage 2: applies puts and removes and counts md5s that are gone") {
  Page a = MakePage("http://a/", 'x'), b = MakePage("http://b/", 'x'), c = MakePage("http://c/", 'y');
  Rows old = {PageMd5Row(a), PageMd5Row(b), PageMd5Row(c)};
  std::sort(old.begin(), old.end());
  auto remove = [](const Page& p) { return OwnedEdit{PageMd5Key(p.md5, p.url), 0, kRemove, ""}; };
  RowCollector out;
  auto rows = NewVectorIterator(old);
  // Removing a leaves x held by b; removing c leaves no page with y.
  auto edits = NewVectorEditIterator(testutil::StableSorted({remove(a), remove(c)}));
  auto stats = ApplyPagesByMd5(*rows, *edits, out);
  REQUIRE(stats);
  CHECK(out.rows == Rows{PageMd5Row(b)});
  CHECK(stats->notices == 1);
}

TEST_CASE("stage 3: last addition wins, source rule against the new pagesByMD5") {
  Page holder = MakePage("http://p/", 'x');
  Link old_kept = MakeLink('x', "http://t1/", true);
  Link old_gone = MakeLink('g', "http://t2/");
  Rows old = {LinkMd5Row(old_kept), LinkMd5Row(old_gone)};
  std::sort(old.begin(), old.end());
  Link first = MakeLink('x', "http://t3/"), last = first, orphan = MakeLink('n', "http://t4/");
  first.anchor = "first";
  last.anchor = "last";
  auto put = [](const Link& l, uint64_t order) {
    std::string v;
    EncodeLinkValue(l, &v);
    return OwnedEdit{LinkMd5Key(l.from, l.url), order, kPut, v};
  };
  const std::vector<OwnedEdit> puts =
      testutil::StableSorted({put(first, 1), put(last, 2), put(orphan, 3)});
  EditCollector to_url;
  auto rows = NewVectorIterator(old);
  auto pages = NewVectorIterator({PageMd5Row(holder)});
  auto edits = NewVectorEditIterator(puts);
  auto stats = ApplyLinksByMd5(*rows, *edits, *pages, to_url);
  REQUIRE(stats);
  CHECK(stats->rows_out == 0);  // stage 3 writes no table
  // Stage 5 writes the rows stage 3 decided (here without fixes).
  RowCollector out;
  auto again_rows = NewVectorIterator(old);
  auto again_pages = NewVectorIterator({PageMd5Row(holder)});
  auto again = NewVectorEditIterator(puts);
  auto fixed = ApplyLinkFixes(*again_rows, *again, *again_pages, out);
  REQUIRE(fixed);
  CHECK(fixed->rows_out == 2);
  // A new link is guessed to point at a page with outlinks until stage 4 checks it.
  Link expected_last = last;
  expected_last.target_has_outlink = true;
  Rows want = {LinkMd5Row(old_kept), LinkMd5Row(expected_last)};
  std::sort(want.begin(), want.end());
  CHECK(out.rows == want);
  // linksByURL hears: the new link put, the link from the gone md5 removed.
  auto sorted = to_url.Sorted();
  REQUIRE(sorted.size() == 2);
  CHECK(sorted[0].key == LinkUrlKey(old_gone.url, old_gone.from));
  CHECK(sorted[0].kind == kRemove);
  CHECK(sorted[1].key == LinkUrlKey(last.url, last.from));
  CHECK(sorted[1].kind == kPut);
}

TEST_CASE("stage 4: target rule drops dangling links and fixes flags, stage 5 applies") {
  Page with_out = MakePage("http://t1/", 'a', 4);
  Link stale_flag = MakeLink('x', "http://t1/", false);
  Link dangling = MakeLink('x', "http://zz-after-every-page/", true);
  Rows old = {LinkUrlRow(stale_flag), LinkUrlRow(dangling)};
  std::sort(old.begin(), old.end());
  RowCollector out;
  EditCollector to_md5;
  auto rows = NewVectorIterator(old);
  auto pages = NewVectorIterator({PageRow(with_out)});
  auto none = NewVectorEditIterator({});
  auto stats = ApplyLinksByUrl(*rows, *none, *pages, out, to_md5);
  REQUIRE(stats);
  Link fixed = stale_flag;
  fixed.target_has_outlink = true;
  CHECK(out.rows == Rows{LinkUrlRow(fixed)});
  auto fixes = to_md5.Sorted();
  REQUIRE(fixes.size() == 2);

  // Stage 5 over the linksByMD5 rows those links came from (their source page exists).
  Rows md5_rows = {LinkMd5Row(stale_flag), LinkMd5Row(dangling)};
  std::sort(md5_rows.begin(), md5_rows.end());
  RowCollector final_rows;
  auto md5_it = NewVectorIterator(md5_rows);
  auto sources = NewVectorIterator({PageMd5Row(MakePage("http://src/", 'x'))});
  auto fix_it = NewVectorEditIterator(fixes);
  REQUIRE(ApplyLinkFixes(*md5_it, *fix_it, *sources, final_rows));
  CHECK(final_rows.rows == Rows{LinkMd5Row(fixed)});
}

TEST_CASE("stage 5: a fix for a link linksByMD5 does not hold is corruption") {
  RowCollector out;
  auto rows = NewVectorIterator({});
  auto pages = NewVectorIterator({});
  auto fixes = NewVectorEditIterator({OwnedEdit{"0123456789abcdefhttp://x/", 0, kRemove, ""}});
  auto stats = ApplyLinkFixes(*rows, *fixes, *pages, out);
  REQUIRE_FALSE(stats);
  CHECK(stats.error().IsCorruption());
  // The message names the table and the row's key: its md5 in hex and its url.
  const std::string message = stats.error().message();
  CHECK_THAT(message, Catch::Contains("linksByMD5 key 30313233343536373839616263646566 http://x/"));
  CHECK_THAT(message, Catch::Contains("a fix of stage 4 for a link the table does not hold"));
}

TEST_CASE("stage 1: a page edit that does not decode names pagesByURL and the url") {
  RowCollector table;
  EditCollector to_md5, to_links;
  auto rows = NewVectorIterator({});
  auto edits = NewVectorEditIterator({OwnedEdit{"http://a.example/", 0, kAddPage, "xx"}});
  auto stats = ApplyPagesByUrl(*rows, *edits, 0, {&table, &to_md5, &to_links});
  REQUIRE_FALSE(stats);
  CHECK(stats.error().IsCorruption());
  CHECK_THAT(stats.error().message(), Catch::StartsWith("pagesByURL key http://a.example/: "));
}
