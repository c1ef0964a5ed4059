// The backbone test: random sessions (test/util/session_gen.h) applied to the real
// single-machine writer and to the Model of spec/webdb-semantics.md; after every session
// all four tables and both counts must be equal and the spec's invariants must hold.
// It also checks that the generated sessions really contain every case the generator
// promises, so a generator change cannot quietly stop testing one.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "test/util/layer_tables.h"
#include "test/util/model_db.h"
#include "test/util/session_gen.h"
#include "webdb/db/manifest.h"

namespace testutil {
namespace {

using webdb::Md5;
using Op = Call::Op;

// Every case the generator promises (test/util/session_gen.h).
const char* const kPromised[] = {"empty session",
                                 "page-only session",
                                 "link-only session",
                                 "pages sharing an md5",
                                 "deletePage of an absent page",
                                 "addPageIfNotPresent, present, with link",
                                 "addPageIfNotPresent, present, no link",
                                 "addPageIfNotPresent, absent, with link",
                                 "addPageIfNotPresent, absent, no link",
                                 "repeated link key",
                                 "link from absent content",
                                 "link to absent page",
                                 "url byte >= 0x80",
                                 "url with quote or backslash",
                                 "anchor with NUL",
                                 "65535-byte url",
                                 "65535-byte anchor",
                                 "targetHasOutlink flipped",
                                 "links dropped with their content"};

// The cases seen in the sessions, judged against the db before and after each one.
class Coverage {
 public:
  void Observe(const Model& before, const Session& s, const Model& after) {
    ObserveShape(s);
    ObservePageCalls(before, s);
    ObserveLinkAdditions(s, after);
    ObserveLinkChanges(before, after);
    auto by_md5 = after.PagesByMd5();
    for (size_t i = 1; i < by_md5.size(); ++i) {
      if (by_md5[i].md5 == by_md5[i - 1].md5) Seen("pages sharing an md5");
    }
  }

  // The names of promised cases never seen.
  std::string Missing() const {
    std::string missing;
    for (const char* c : kPromised) {
      if (!seen_.count(c)) missing += std::string(c) + "; ";
    }
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b) {
        if (!pairs_[a][b]) missing += fmt::format("page call ranks {} then {}; ", a, b);
      }
    }
    return missing;
  }

 private:
  void Seen(const char* what) { seen_.insert(what); }

  void ObserveShape(const Session& s) {
    size_t links = 0, page_links = 0;
    for (const Call& c : s) {
      if (c.op == Op::kAddLink) ++links;
      if (c.op != Op::kAddLink && c.link) ++page_links;
      ObserveBytes(c);
    }
    if (s.empty()) Seen("empty session");
    if (!s.empty() && links == 0 && page_links == 0) Seen("page-only session");
    if (!s.empty() && links == s.size()) Seen("link-only session");
  }

  void ObserveBytes(const Call& c) {
    std::string url = c.op == Op::kAddLink ? c.link->url : PageUrl(c);
    for (unsigned char ch : url) {
      if (ch >= 0x80) Seen("url byte >= 0x80");
      if (ch == '"' || ch == '\\') Seen("url with quote or backslash");
    }
    if (url.size() == webdb::kMaxUrlLength) Seen("65535-byte url");
    if (!c.link) return;
    if (c.link->anchor.find('\0') != std::string::npos) Seen("anchor with NUL");
    if (c.link->anchor.size() == webdb::kMaxAnchorLength) Seen("65535-byte anchor");
  }

  void ObservePageCalls(const Model& before, const Session& s) {
    std::map<std::string, std::vector<int>> ranks;
    for (const Call& c : s) {
      if (c.op == Op::kAddLink) continue;
      bool present = before.pages().count(PageUrl(c)) > 0;
      if (c.op == Op::kDeletePage && !present) Seen("deletePage of an absent page");
      if (c.op == Op::kAddPageIfNotPresent) {
        static const char* const kApinp[2][2] = {
            {"addPageIfNotPresent, absent, no link", "addPageIfNotPresent, absent, with link"},
            {"addPageIfNotPresent, present, no link", "addPageIfNotPresent, present, with link"}};
        Seen(kApinp[present][c.link.has_value()]);
      }
      std::vector<int>& earlier = ranks[PageUrl(c)];
      for (int r : earlier) pairs_[r][PageRank(c.op)] = true;
      earlier.push_back(PageRank(c.op));
    }
  }

  void ObserveLinkAdditions(const Session& s, const Model& after) {
    std::set<Md5> md5s;
    for (const auto& [url, p] : after.pages()) md5s.insert(p.md5);
    std::set<Model::LinkKey> keys;
    for (const Call& c : s) {
      if (!c.link) continue;
      if (!keys.insert({c.link->from, c.link->url}).second) Seen("repeated link key");
      if (!md5s.count(c.link->from)) Seen("link from absent content");
      if (!after.pages().count(c.link->url)) Seen("link to absent page");
    }
  }

  void ObserveLinkChanges(const Model& before, const Model& after) {
    std::set<Md5> md5s;
    for (const auto& [url, p] : after.pages()) md5s.insert(p.md5);
    for (const auto& [key, link] : before.links()) {
      auto it = after.links().find(key);
      if (it == after.links().end() && !md5s.count(key.first)) {
        Seen("links dropped with their content");
      }
      if (it != after.links().end() && it->second.target_has_outlink != link.target_has_outlink) {
        Seen("targetHasOutlink flipped");
      }
    }
  }

  std::set<std::string> seen_;
  bool pairs_[4][4] = {};
};

// Runs `sessions` generated sessions from seed on a fresh db and model; after_each (if
// set) looks at the db after each one.
void RunSeed(uint64_t seed, int sessions, const GenOptions& gen_options,
             const webdb::WriterOptions& writer_options, Coverage* coverage,
             const std::function<void(ModelDb&)>& after_each = {}) {
  ModelDb db(writer_options);
  SessionGenerator gen(seed, gen_options);
  for (int i = 0; i < sessions; ++i) {
    Session s = gen.Next();
    CAPTURE(seed, i, writer_options.memory_budget);
    INFO(FormatSession(s, 400));
    Model before = db.model();
    webdb::Status st = db.Apply(s);
    INFO("writer: " << st.ToString());
    REQUIRE(st.ok());
    std::string diff = db.Check();
    INFO(diff);
    REQUIRE(diff.empty());
    if (coverage) coverage->Observe(before, s, db.model());
    if (after_each) after_each(db);
  }
}

TEST_CASE("random sessions give the model's result", "[random]") {
  Coverage coverage;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    webdb::WriterOptions options;
    // Half the seeds sort within 16 KiB (about 5 KiB a sorter): sessions of more than about
    // 40 page calls spill.
    if (seed % 2 == 0) options.memory_budget = 16 << 10;
    // Every other seed merges each stage in key ranges, however small (webdb/db/update.h).
    if (seed % 4 < 2) options.partition_rows = 1;
    RunSeed(seed, 10, GenOptions{}, options, &coverage);
  }
  INFO("cases the generator never produced: " << coverage.Missing());
  CHECK(coverage.Missing().empty());
}

// Layered tables (docs/DESIGN.md, "Layered tables"): after each session the db's tables
// are republished as bases and runs that merge to the same rows (test/util/layer_tables.h),
// so that readers and verify read a merge of layers, and the next session's stages merge
// their edits into them.
TEST_CASE("random sessions on layered tables give the model's result", "[random][layered]") {
  uint64_t runs_seen = 0;
  for (uint64_t seed = 501; seed <= 512; ++seed) {
    webdb::WriterOptions options;
    if (seed % 2 == 0) options.memory_budget = 16 << 10;
    if (seed % 4 < 2) options.partition_rows = 1;
    GenOptions gen;
    if (seed % 3 == 0) {
      gen.universe_urls = 400;
      gen.universe_md5s = 100;
      gen.max_calls = 400;
    }
    RunSeed(seed, 8, gen, options, nullptr, [&](ModelDb& db) {
      REQUIRE(LayerCurrentVersion(db.env(), db.dir(), seed * 1000 + runs_seen, 4).ok());
      auto m = webdb::ReadCurrentManifest(db.env(), db.dir());
      REQUIRE(m.has_value());
      for (const webdb::TableRuns& runs : m->runs) runs_seen += runs.size();
      std::string diff = db.Check();
      INFO("after layering: " << diff);
      REQUIRE(diff.empty());
    });
  }
  CHECK(runs_seen > 12 * 8 * 4);
}

TEST_CASE("random sessions with a larger universe", "[random]") {
  GenOptions gen;
  gen.universe_urls = 400;
  gen.universe_md5s = 100;
  gen.max_calls = 400;
  for (uint64_t seed = 101; seed <= 103; ++seed) {
    RunSeed(seed, 5, gen, webdb::WriterOptions{}, nullptr);
  }
}

// Every stage merged in key ranges, at once or one after the other, the url stages too:
// pagesByURL has several blocks, so stage 1 and stage 4 have ranges (webdb/db/update.h).
TEST_CASE("random sessions merged in key ranges", "[random]") {
  GenOptions gen;
  gen.universe_urls = 1500;
  gen.universe_md5s = 300;
  gen.min_calls = 1000;
  gen.max_calls = 3000;
  gen.churn = 0.2;
  for (uint64_t seed = 401; seed <= 403; ++seed) {
    webdb::WriterOptions options;
    options.partition_rows = 1;
    options.threads = seed % 2 == 0;
    std::set<webdb::TableId> in_parts;  // tables some session left in more than one part
    RunSeed(seed, 6, gen, options, nullptr, [&in_parts](ModelDb& db) {
      auto m = webdb::ReadCurrentManifest(db.env(), db.dir());
      REQUIRE(m.has_value());
      for (int t = 0; t < webdb::kNumTables; ++t) {
        if (m->tables[t].size() > 1) in_parts.insert(static_cast<webdb::TableId>(t));
      }
    });
    CHECK(in_parts.size() == webdb::kNumTables);
  }
}

// Small sessions on a db of many blocks: most blocks of every table have no edit, so the
// stages copy them whole, and stages 3 and 4 copy those that no notice marked while
// rechecking the marked ones row by row (webdb/block_marks.h).
TEST_CASE("small sessions on a db of many blocks", "[random]") {
  GenOptions gen;
  gen.universe_urls = 3000;
  gen.universe_md5s = 600;
  gen.min_calls = 25000;
  gen.max_calls = 25000;
  gen.churn = 0.01;
  gen.long_url_chance = 0;
  gen.long_anchor_chance = 0;
  // Seed 303 on layered tables: the blocks are the base's, copied whole where no run and
  // no edit touches them (test/util/layer_tables.h).
  for (uint64_t seed = 301; seed <= 303; ++seed) {
    webdb::WriterOptions options;
    if (seed == 302) options.partition_rows = 1;  // and in key ranges
    const bool layered = seed == 303;
    ModelDb db(options);
    SessionGenerator generator(seed, gen);
    for (int i = 0; i < 8; ++i) {
      Session s = generator.Next();
      if (i > 0) s.resize(std::min<size_t>(s.size(), 20 + 40 * i));
      CAPTURE(seed, i);
      INFO(FormatSession(s, 400));
      REQUIRE(db.Apply(s).ok());
      std::string diff = db.Check();
      INFO(diff);
      REQUIRE(diff.empty());
      if (!layered) continue;
      REQUIRE(LayerCurrentVersion(db.env(), db.dir(), seed + i, 3).ok());
      diff = db.Check();
      INFO("after layering: " << diff);
      REQUIRE(diff.empty());
    }
  }
}

// The run files of stage 1's sorters in the writer's work area (named in
// webdb/db/stage_sorters.h and webdb/sort/sorter.h).
std::set<std::string> StageOneRuns(nutchfs::Env& env, const std::string& work_dir) {
  std::set<std::string> runs;
  auto children = env.GetChildren(work_dir);
  if (!children) return runs;
  for (const std::string& name : *children) {
    if (name.starts_with("stage1.") && name.find("-run-") != std::string::npos) {
      runs.insert(name);
    }
  }
  return runs;
}

TEST_CASE("random sessions through a tiny sort budget: spills and multi-pass merges", "[random]") {
  GenOptions gen;
  gen.min_calls = 300;
  gen.max_calls = 700;
  for (uint64_t seed = 201; seed <= 202; ++seed) {
    webdb::WriterOptions options;
    options.memory_budget = 8 << 10;  // under 3 KiB a sorter: merges 2 runs at a time
    ModelDb db(options);
    std::set<std::string> spilled, after_merge;
    db.options().hooks.on_stage = [&](int stage) {
      if (stage == 1) spilled = StageOneRuns(db.env(), db.dir() + "/work");
      if (stage == 2) after_merge = StageOneRuns(db.env(), db.dir() + "/work");
    };
    SessionGenerator generator(seed, gen);
    for (int i = 0; i < 4; ++i) {
      Session s = generator.Next();
      CAPTURE(seed, i);
      INFO(FormatSession(s, 400));
      REQUIRE(db.Apply(s).ok());
      std::string diff = db.Check();
      INFO(diff);
      REQUIRE(diff.empty());
      if (s.size() < 300) continue;  // an empty or small session shape
      CHECK(spilled.size() >= 3);
      bool merged = false;  // a pass merged (and removed) some of the spilled runs
      for (const std::string& run : spilled) merged |= !after_merge.count(run);
      CHECK(merged);
    }
  }
}

}  // namespace
}  // namespace testutil
