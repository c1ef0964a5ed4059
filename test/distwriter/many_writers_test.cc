// k = 64 writer processes on this host (docs/DISTRIBUTED.md, "Scale"): a load
// of a few thousand pages and two update rounds that delete pages, re-add
// others with new content and new outlinks, and add new pages through
// addPageIfNotPresent, each round cut into 64 slices (one `distwriter run`
// process each, all at once). After every round the distributed db must equal,
// table by table, the single-machine db fed the whole session, and `webdb
// verify --config` must find nothing. Nothing here depends on the machine's
// speed: timeouts and leases are far longer than a round on a loaded 2-vCPU
// machine (about 15 s a round on one at rest).
#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "test/util/dist_cluster.h"
#include "test/util/model_db.h"
#include "test/util/session_gen.h"

namespace distwriter {
namespace {

using testutil::DistCluster;
using testutil::ModelDb;
using testutil::Session;

const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
constexpr int kWriters = 64;
constexpr int kPages = 3000;
constexpr int kOutlinks = 4;

std::string Url(int id) {
  return "http://host" + std::to_string(id % 97) + ".example/p" + std::to_string(id);
}

// Page id with content version v, and its outlinks to pages of [0, universe).
void AddFetched(int id, int v, int universe, std::mt19937_64 &rng, Session *out) {
  webdb::Page page = webdb::Page::WithDefaults(Url(id));
  page.md5 = webdb::Md5Of(Url(id) + "#" + std::to_string(v));
  page.num_outlinks = kOutlinks;
  out->push_back(testutil::AddPageCall(page));
  for (int l = 0; l < kOutlinks; ++l) {
    webdb::Link link;
    link.from = page.md5;
    link.url = Url(static_cast<int>(rng() % static_cast<uint64_t>(universe)));
    link.domain_id = static_cast<int64_t>(rng() % 50);
    link.anchor = "a" + std::to_string(id) + "." + std::to_string(v) + "." + std::to_string(l);
    out->push_back(testutil::AddLinkCall(link));
  }
}

// Round 0 loads kPages pages; round r >= 1 deletes 5% of them, re-adds 15% with
// new content and outlinks, and adds kPages/50 new pages by addPageIfNotPresent
// (with a link from a re-added page), some of them already present.
Session MakeRound(int round, std::mt19937_64 &rng) {
  Session s;
  const int universe = kPages + round * (kPages / 50);
  if (round == 0) {
    for (int id = 0; id < kPages; ++id) AddFetched(id, 0, universe, rng, &s);
    return s;
  }
  webdb::Md5 last_readded{};
  for (int id = 0; id < kPages; ++id) {
    const uint64_t pick = rng() % 100;
    if (pick < 5) {
      s.push_back(testutil::DeletePageCall(Url(id)));
    } else if (pick < 20) {
      AddFetched(id, round, universe, rng, &s);
      last_readded = webdb::Md5Of(Url(id) + "#" + std::to_string(round));
    }
  }
  for (int id = universe - kPages / 50 - 10; id < universe; ++id) {
    webdb::Link link;
    link.from = last_readded;
    link.url = Url(id);
    link.anchor = "new" + std::to_string(id);
    s.push_back(testutil::AddPageIfNotPresentCall(webdb::Page::WithDefaults(Url(id)), link));
  }
  return s;
}

TEST_CASE(
    "64 writers on one host equal the single-machine writer over a load "
    "and two rounds",
    "[slow]") {
  const auto start = std::chrono::steady_clock::now();
  DistCluster cluster(kDistwriter, kWriters, 3600000);
  cluster.SetGlobal("lock_lease_ms", "600000");
  cluster.Create();
  webdb::WriterOptions single_options;
  single_options.memory_budget = size_t{4} << 20;
  ModelDb single(single_options);
  std::mt19937_64 rng(38);
  uint64_t deleted = 0, loaded_pages = 0, loaded_links = 0;
  for (int r = 0; r < 3; ++r) {
    CAPTURE(r);
    const Session session = MakeRound(r, rng);
    const std::vector<Session> slices = testutil::SplitSession(session, kWriters, rng);
    const auto reports = cluster.RunRound(slices, {"--memory", "4M"});
    REQUIRE(single.Apply(session).ok());
    auto expected = single.Dump();
    REQUIRE(expected.has_value());
    const testutil::DbDump actual = cluster.Dump();
    REQUIRE(testutil::CompareDumps(*expected, actual) == "");
    REQUIRE(testutil::CompareDumps(single.model().ToDump(), actual) == "");
    REQUIRE(cluster.VerifyFindings() == "");
    for (int i = 0; i < kWriters; ++i) {
      CAPTURE(i);
      CHECK(reports[i].version == static_cast<uint64_t>(r) + 2);
      CHECK(reports[i].calls == slices[i].size());
      CHECK(reports[i].pages == actual.num_pages);
    }
    if (r == 0) {
      loaded_pages = actual.num_pages;
      loaded_links = actual.num_links;
      CHECK(loaded_pages == kPages);
      // Pages spread over the sections: the url breakpoints agreed in stage 0
      // split them.
      int with_pages = 0;
      for (const webdb::Manifest &m : cluster.Committed(0).sections)
        with_pages += m.records(webdb::TableId::kPagesByUrl) > 0 ? 1 : 0;
      CHECK(with_pages > kWriters / 2);
    }
    for (const webdb::Call &c : session) deleted += c.op == webdb::Call::Op::kDeletePage;
  }
  // The rounds did delete pages and change links (else the comparison proves
  // little).
  CHECK(deleted > kPages / 20);
  CHECK(cluster.Dump().num_pages < loaded_pages);
  CHECK(cluster.Dump().num_links != loaded_links);
  WARN("k = 64, a load and two rounds: "
       << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s");
}

}  // namespace
}  // namespace distwriter
