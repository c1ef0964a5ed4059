// webdb::ComputeStats on a small hand-made db: every number checked against what the
// sessions put in.
#include "webdb/inspect/db_stats.h"

#include <catch2/catch.hpp>

#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/writer.h"

namespace webdb {
namespace {

Page MakePage(std::string url, std::string_view content, float score, uint8_t retries,
              int64_t next_fetch) {
  Page p = Page::WithDefaults(std::move(url));
  p.md5 = Md5Of(content);
  p.score = score;
  p.retries = retries;
  p.next_fetch = next_fetch;
  return p;
}

Link MakeLink(std::string_view content, std::string url) {
  Link l;
  l.from = Md5Of(content);
  l.url = std::move(url);
  return l;
}

TEST_CASE("stats count what the sessions put in", "[stats]") {
  testutil::TempDir tmp;
  auto env = nutchfs::NewLocalEnv();
  const std::string dir = tmp.File("db");
  REQUIRE(Writer::Create(*env, dir).ok());
  testutil::Session s = {
      testutil::AddPageWithScoreCall(MakePage("http://a.example/1", "A", 0.5f, 0, 0)),
      testutil::AddPageWithScoreCall(MakePage("http://a.example/2", "B", 2, 1, 100)),
      testutil::AddPageWithScoreCall(MakePage("http://a.example/3", "C", 0, 1, 200)),
      testutil::AddPageWithScoreCall(MakePage("http://b.example/", "D", -1, 3, 50)),
      testutil::AddPageWithScoreCall(MakePage("https://a.example/", "E", 1e6f, 0, 0)),
      testutil::AddLinkCall(MakeLink("A", "http://b.example/")),
      testutil::AddLinkCall(MakeLink("A", "https://a.example/")),
      testutil::AddLinkCall(MakeLink("A", "http://a.example/2")),
      testutil::AddLinkCall(MakeLink("B", "http://b.example/")),
      testutil::AddLinkCall(MakeLink("D", "http://b.example/")),
  };
  REQUIRE(testutil::RunSession(*env, dir, s, {}).ok());
  auto reader = Reader::Open(*env, dir);
  REQUIRE(reader.has_value());

  SECTION("full") {
    StatsOptions options;
    options.now_ms = 100;
    options.top_hosts = 2;
    auto r = ComputeStats(**reader, options);
    REQUIRE(r.has_value());
    CHECK(r->pages == 5);
    CHECK(r->links == 5);
    CHECK(r->tables[0].records == 5);
    CHECK(r->tables[3].records == 5);
    CHECK(r->tables[0].bytes > 53);
    CHECK(r->due_pages == 4);
    CHECK(r->top_hosts_by_pages ==
          std::vector<HostCount>{{"http://a.example", 3}, {"http://b.example", 1}});
    CHECK(r->top_hosts_by_inlinks ==
          std::vector<HostCount>{{"http://b.example", 3}, {"http://a.example", 1}});
    CHECK(r->outdegree == Histogram{{"1", 2}, {"2-3", 1}});
    CHECK(r->score == Histogram{{"<0", 1}, {"0", 1}, {"[0.1,1)", 1}, {"[1,10)", 1}, {">=1000", 1}});
    CHECK(r->retries == Histogram{{"0", 2}, {"1", 2}, {"3", 1}});
  }
  SECTION("quick reads no table") {
    StatsOptions options;
    options.quick = true;
    auto r = ComputeStats(**reader, options);
    REQUIRE(r.has_value());
    CHECK(r->quick);
    CHECK(r->pages == 5);
    CHECK(r->due_pages == 0);
    CHECK(r->score.empty());
  }
}

TEST_CASE("host of a url is its scheme and authority", "[stats]") {
  CHECK(HostOfUrl("http://a.example:80/x/y") == "http://a.example:80");
  CHECK(HostOfUrl("http://a.example?q") == "http://a.example");
  CHECK(HostOfUrl("http://a.example") == "http://a.example");
  CHECK(HostOfUrl("no-scheme") == "");
}

TEST_CASE("quick stats sum the counts and sizes of the sections' manifests", "[stats]") {
  Manifest a, b;
  for (int t = 0; t < kNumTables; ++t) {
    a.tables[t] = {TableFile{"a", 10u + t, 1000u * (t + 1)}};
    // b's tables in two parts: both count.
    b.tables[t] = {TableFile{"b", 1, 3}, TableFile{"b.1", 0, 4}};
  }
  StatsReport r = QuickStats({&a, &b});
  CHECK(r.quick);
  CHECK(r.pages == a.num_pages() + b.num_pages());
  CHECK(r.links == a.num_links() + b.num_links());
  CHECK(r.tables[static_cast<int>(TableId::kLinksByMd5)].bytes ==
        a.bytes(TableId::kLinksByMd5) + 7);
  CHECK(r.tables[static_cast<int>(TableId::kPagesByUrl)].records == 11);
  CHECK(r.due_pages == 0);
  CHECK(r.top_hosts_by_pages.empty());
  CHECK(r.tables[0].runs == 0);
  CHECK(r.tables[0].lookup_layers() == 1);
  CHECK(r.tables[0].scan_amplification() == 1.0);
}

// docs/DESIGN.md, "Layered tables": a table's runs, what a lookup and a scan read.
TEST_CASE("stats show each table's runs and read amplification", "[stats][layered]") {
  Manifest a, b;
  const TableId t = TableId::kLinksByMd5;
  // a: 10 base rows, one run of 4 rows (2 inserts, 1 remove, 1 replace): 11 rows, 14 stored.
  a.SetLayers(t, {TableFile{"a", 10, 100}}, {RunFile{TableFile{"a.r1", 4, 20}, 2, 1}});
  // b: 5 base rows, two runs of 1 insert each: 7 rows, 7 stored.
  b.SetLayers(t, {TableFile{"b", 5, 50}},
              {RunFile{TableFile{"b.r1", 1, 10}, 1, 0}, RunFile{TableFile{"b.r2", 1, 10}, 1, 0}});
  const TableSize one = QuickStats({&a}).tables[static_cast<int>(t)];
  CHECK(one.records == 11);
  CHECK(one.bytes == 120);
  CHECK(one.runs == 1);
  CHECK(one.lookup_layers() == 2);
  CHECK(one.scan_amplification() == Approx(14.0 / 11));
  // Sections: the rows add up, the runs are the most a section has.
  const TableSize both = QuickStats({&a, &b}).tables[static_cast<int>(t)];
  CHECK(both.records == 18);
  CHECK(both.runs == 2);
  CHECK(both.lookup_layers() == 3);
  CHECK(both.scan_amplification() == Approx(21.0 / 18));
}

TEST_CASE("stats report the progress of each scan", "[stats]") {
  testutil::TempDir tmp;
  auto env = nutchfs::NewLocalEnv();
  const std::string dir = tmp.File("db");
  REQUIRE(Writer::Create(*env, dir).ok());
  testutil::Session s;
  for (int i = 0; i < 5000; ++i) {
    const std::string url = "http://p/" + std::to_string(i);
    s.push_back(testutil::AddPageWithScoreCall(MakePage(url, url, 1, 0, 0)));
    s.push_back(testutil::AddLinkCall(MakeLink(url, "http://p/0")));
  }
  REQUIRE(testutil::RunSession(*env, dir, s, {}).ok());
  auto reader = Reader::Open(*env, dir);
  REQUIRE(reader.has_value());
  std::vector<std::string> steps;
  StatsOptions options;
  options.progress = [&](const Progress& p) {
    CHECK(p.done == 4096);
    CHECK(p.total == 5000);
    steps.emplace_back(p.step);
  };
  REQUIRE(ComputeStats(**reader, options).has_value());
  CHECK(steps ==
        std::vector<std::string>{"stats pagesByURL", "stats linksByURL", "stats linksByMD5"});
}

}  // namespace
}  // namespace webdb
