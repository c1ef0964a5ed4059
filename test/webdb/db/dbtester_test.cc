// A port of the original Nutch DBTester (seed 001, spec/webdb-semantics.md): build a
// random web graph of N pages with up to 20 outlinks each, load it, then run rounds
// that delete pages, refetch pages with new content (new md5, new outlinks), bring
// deleted urls back and discover new pages through addPageIfNotPresent with a link.
// After every round the whole reader API is checked against the Model: counts, getPage
// for every url ever seen, getLinks by url and by md5, getPages/pageExists for every
// md5 ever used, and the three enumerations (order, counts and content).
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>

#include "test/util/model_db.h"

namespace testutil {
namespace {

using webdb::Link;
using webdb::Md5;
using webdb::Page;

constexpr int kMaxOutlinks = 20;

// The DBTester's random web: which urls exist, the content each one has, and the
// sessions that load and change it. Every url and md5 ever used is remembered so the
// checks can also look up what is gone.
class WebGraph {
 public:
  WebGraph(uint64_t seed, size_t pages) : rng_(seed) {
    for (size_t i = 0; i < pages; ++i) NewUrl();
  }

  Session LoadSession() {
    Session s;
    for (size_t i = 0; i < urls_.size(); ++i) Fetch(i, &s);
    Shuffle(&s);
    return s;
  }

  // Deletes ~5% of the live pages, refetches ~10% with new content (some of them a copy
  // of another page's content), revives ~20% of the dead urls and discovers ~2% new ones.
  Session RoundSession() {
    Session s;
    const size_t known = urls_.size();
    for (size_t i = 0; i < known; ++i) {
      int r = Percent();
      if (live_[i] && r < 5) {
        s.push_back(DeletePageCall(urls_[i]));
        live_[i] = false;
      } else if ((live_[i] && r < 15) || (!live_[i] && r < 20)) {
        Fetch(i, &s);
      }
    }
    for (size_t i = 0; i < known / 50; ++i) Discover(&s);
    Shuffle(&s);
    return s;
  }

  const std::vector<std::string>& urls() const { return urls_; }
  const std::set<Md5>& md5s() const { return md5s_; }

 private:
  int Percent() { return static_cast<int>(rng_() % 100); }

  size_t NewUrl() {
    size_t i = urls_.size();
    urls_.push_back(fmt::format("http://www.site{}.com/dir{}/page{}.html", i % 97, i % 13, i));
    live_.push_back(false);
    md5_.emplace_back();
    num_outlinks_.push_back(0);
    return i;
  }

  Md5 NewContent() {
    Md5 m;
    for (auto& b : m) b = static_cast<uint8_t>(rng_());
    md5s_.insert(m);
    return m;
  }

  // addPage (or addPageWithScore) of url i with new content and its outlinks.
  void Fetch(size_t i, Session* s) {
    Page p = Page::WithDefaults(urls_[i]);
    size_t copy_of = rng_() % urls_.size();
    bool copy = Percent() < 10 && live_[copy_of] && copy_of != i;
    p.md5 = copy ? md5_[copy_of] : NewContent();
    p.next_fetch = static_cast<int64_t>(rng_() % 1000000);
    p.score = static_cast<float>(rng_() % 1000) / 100.0f;
    std::vector<Link> outlinks = copy ? std::vector<Link>{} : Outlinks(p.md5);
    p.num_outlinks = copy ? num_outlinks_[copy_of] : static_cast<int32_t>(outlinks.size());
    s->push_back(Percent() < 50 ? AddPageCall(p) : AddPageWithScoreCall(p));
    for (Link& l : outlinks) s->push_back(AddLinkCall(std::move(l)));
    live_[i] = true;
    md5_[i] = p.md5;
    num_outlinks_[i] = p.num_outlinks;
  }

  std::vector<Link> Outlinks(const Md5& from) {
    std::vector<Link> out;
    int n = static_cast<int>(rng_() % (kMaxOutlinks + 1));
    for (int k = 0; k < n; ++k) {
      Link l;
      l.from = from;
      l.url = urls_[rng_() % urls_.size()];
      l.anchor = fmt::format("anchor {} of {}", k, webdb::Md5Hex(from).substr(0, 8));
      l.domain_id = static_cast<int64_t>(rng_() % 97);
      out.push_back(std::move(l));
    }
    return out;
  }

  // A url found on a live page: addPageIfNotPresent with the link to it. Mostly a new
  // url; sometimes a known one, where it only inserts (and links) if the url is dead.
  void Discover(Session* s) {
    size_t from = rng_() % urls_.size();
    if (!live_[from]) return;
    size_t i = Percent() < 30 ? rng_() % urls_.size() : NewUrl();
    Page p = Page::WithDefaults(urls_[i]);
    md5s_.insert(p.md5);
    Link l;
    l.from = md5_[from];
    l.url = urls_[i];
    l.anchor = "discovered";
    s->push_back(AddPageIfNotPresentCall(p, l));
    if (live_[i]) return;
    live_[i] = true;
    md5_[i] = p.md5;
    num_outlinks_[i] = 0;
  }

  void Shuffle(Session* s) { std::shuffle(s->begin(), s->end(), rng_); }

  std::mt19937_64 rng_;
  std::vector<std::string> urls_;
  std::vector<bool> live_;
  std::vector<Md5> md5_;
  std::vector<int32_t> num_outlinks_;
  std::set<Md5> md5s_;
};

std::map<std::string, std::vector<Link>> InlinksByUrl(const Model& model) {
  std::map<std::string, std::vector<Link>> in;
  for (Link& l : model.LinksByUrl()) in[l.url].push_back(std::move(l));
  return in;
}

void CheckLookupsByUrl(const webdb::Reader& reader, const Model& model, const WebGraph& graph) {
  auto inlinks = InlinksByUrl(model);
  for (const std::string& url : graph.urls()) {
    CAPTURE(url);
    auto page = reader.GetPage(url);
    REQUIRE(page);
    REQUIRE(*page == model.GetPage(url));
    auto links = reader.GetLinks(url);
    REQUIRE(links);
    auto it = inlinks.find(url);
    REQUIRE(*links == (it == inlinks.end() ? std::vector<Link>{} : it->second));
    if (!*page) REQUIRE(links->empty());  // a deleted page's inlinks are gone
  }
}

void CheckLookupsByMd5(const webdb::Reader& reader, const Model& model, const WebGraph& graph) {
  std::map<Md5, std::vector<Page>> pages_of;  // Model::GetPages is O(pages) per call
  for (Page& p : model.PagesByMd5()) pages_of[p.md5].push_back(std::move(p));
  for (const Md5& md5 : graph.md5s()) {
    CAPTURE(webdb::Md5Hex(md5));
    auto pages = reader.GetPages(md5);
    REQUIRE(pages);
    auto it = pages_of.find(md5);
    REQUIRE(*pages == (it == pages_of.end() ? std::vector<Page>{} : it->second));
    auto exists = reader.PageExists(md5);
    REQUIRE(exists);
    REQUIRE(*exists == !pages->empty());
    auto links = reader.GetLinks(md5);
    REQUIRE(links);
    REQUIRE(*links == model.Outlinks(md5));
    if (pages->empty()) REQUIRE(links->empty());  // content no page holds has no outlinks
  }
}

void CheckRound(ModelDb& db, const WebGraph& graph) {
  auto reader = db.OpenReader();
  INFO((reader ? "" : reader.error().ToString()));
  REQUIRE(reader);
  const Model& model = db.model();
  REQUIRE((*reader)->NumPages() == model.pages().size());
  REQUIRE((*reader)->NumLinks() == model.links().size());
  CheckLookupsByUrl(**reader, model, graph);
  CheckLookupsByMd5(**reader, model, graph);
  auto dump = DumpDb(**reader);
  REQUIRE(dump);
  std::string diff = CheckInvariants(*dump);  // strict order, same sets, counts
  INFO(diff);
  REQUIRE(diff.empty());
  diff = CompareDumps(model.ToDump(), *dump);
  INFO(diff);
  REQUIRE(diff.empty());
}

void RunDbTester(uint64_t seed, size_t pages, int rounds) {
  webdb::WriterOptions options;
  options.memory_budget = 1 << 20;  // the load spills
  ModelDb db(options);
  WebGraph graph(seed, pages);
  CAPTURE(seed, pages);
  webdb::Status loaded = db.Apply(graph.LoadSession());
  INFO(loaded.ToString());
  REQUIRE(loaded.ok());
  CheckRound(db, graph);
  REQUIRE(db.model().links().size() > pages * 5);
  for (int round = 1; round <= rounds; ++round) {
    CAPTURE(round);
    webdb::Status s = db.Apply(graph.RoundSession());
    INFO(s.ToString());
    REQUIRE(s.ok());
    CheckRound(db, graph);
  }
}

TEST_CASE("dbtester: random web graph, 2000 pages, 5 rounds of deletes and refetches", "[random]") {
  RunDbTester(/*seed=*/2004, 2000, 5);
}

TEST_CASE("dbtester: random web graph, 20000 pages", "[random][slow]") {
  RunDbTester(/*seed=*/2005, 20000, 5);
}

}  // namespace
}  // namespace testutil
