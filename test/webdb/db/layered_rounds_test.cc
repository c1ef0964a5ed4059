// Rounds that write runs (docs/DESIGN.md, "Writing a round"): a db whose stages plan their
// layers (webdb/db/layer_plan.h) against the same sessions applied to a db that always
// merges into the base: small rounds write runs and absorb them, a table never holds more
// than kMaxRuns, a big round merges into the base, and after every round both dbs hold the
// same rows (and the model's). Versions with runs are kept, rolled back to and read.
// Stages forced to seek (WriterOptions::seeks) write the same runs as stages that walk.
#include <catch2/catch.hpp>

#include "test/util/model_db.h"
#include "test/util/session_gen.h"
#include "webdb/db/layer_plan.h"
#include "webdb/db/manifest.h"
#include "webdb/db/versions.h"

namespace testutil {
namespace {

webdb::Manifest Current(ModelDb& db) {
  auto m = webdb::ReadCurrentManifest(db.env(), db.dir());
  REQUIRE(m.has_value());
  return *m;
}

webdb::WriterOptions WithLayers(webdb::LayerPolicy layers,
                                webdb::SeekPolicy seeks = webdb::SeekPolicy::kPlan) {
  webdb::WriterOptions options;
  options.layers = layers;
  options.seeks = seeks;
  return options;
}

// Applies s to both dbs; both must hold the model's rows.
void ApplyBoth(ModelDb& layered, ModelDb& merged, const Session& s) {
  const webdb::Status applied = layered.Apply(s);
  INFO(applied.ToString());
  REQUIRE(applied.ok());
  REQUIRE(merged.Apply(s).ok());
  std::string diff = layered.Check();
  INFO("layered db: " << diff);
  REQUIRE(diff.empty());
  auto a = merged.Dump();
  auto b = layered.Dump();
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  diff = CompareDumps(*a, *b);
  INFO("layered db against the merged one: " << diff);
  REQUIRE(diff.empty());
}

GenOptions ManyBlocks() {
  GenOptions gen;
  gen.universe_urls = 3000;
  gen.universe_md5s = 600;
  gen.min_calls = 20000;
  gen.max_calls = 20000;
  gen.churn = 0.01;
  gen.long_url_chance = 0;
  gen.long_anchor_chance = 0;
  return gen;
}

struct Layering {
  size_t most_runs = 0;   // the most runs a table had
  bool absorbed = false;  // a round left a table with fewer runs, but some
  bool merged = false;    // a round with runs before left a table with none
};

void Observe(const webdb::Manifest& before, const webdb::Manifest& after, Layering* seen) {
  for (int t = 0; t < webdb::kNumTables; ++t) {
    const size_t was = before.runs[t].size(), is = after.runs[t].size();
    REQUIRE(is <= webdb::kMaxRuns);
    seen->most_runs = std::max(seen->most_runs, is);
    if (is > 0 && is <= was && after.runs[t] != before.runs[t]) seen->absorbed = true;
    if (was > 0 && is == 0) seen->merged = true;
  }
}

// A load and 14 rounds of shrinking size, so that runs pile up before they are absorbed,
// applied to both dbs.
Layering ShrinkingRounds(ModelDb& layered, ModelDb& merged, SessionGenerator& gen) {
  ApplyBoth(layered, merged, gen.Next());  // the load
  Layering seen;
  for (int i = 0; i < 14; ++i) {
    Session s = gen.Next();
    s.resize(std::min(s.size(), std::max<size_t>(4, 200 >> (i % 7))));
    CAPTURE(i);
    const webdb::Manifest before = Current(layered);
    ApplyBoth(layered, merged, s);
    Observe(before, Current(layered), &seen);
  }
  return seen;
}

TEST_CASE("small rounds write runs and absorb them, and a big round merges into the base",
          "[layered]") {
  ModelDb layered(WithLayers(webdb::LayerPolicy::kPlan));
  ModelDb merged(WithLayers(webdb::LayerPolicy::kMerge));
  SessionGenerator gen(601, ManyBlocks());
  Layering seen = ShrinkingRounds(layered, merged, gen);
  CHECK(seen.most_runs >= 3);
  CHECK(seen.absorbed);
  const webdb::Manifest before = Current(layered);
  ApplyBoth(layered, merged, gen.Next());  // a big round
  Observe(before, Current(layered), &seen);
  CHECK(seen.merged);
  CHECK(Current(merged).runs == std::array<webdb::TableRuns, webdb::kNumTables>{});
}

GenOptions SmallSessions() {
  GenOptions gen_options;
  gen_options.universe_urls = 400;
  gen_options.max_calls = 300;
  return gen_options;
}

// Round i of the sessions of seed (of shrinking size for an even seed), applied to both
// dbs; the session.
Session ForcedRound(ModelDb& layered, ModelDb& merged, SessionGenerator& gen, uint64_t seed,
                    int i, Layering* seen) {
  Session s = gen.Next();
  if (seed % 2 == 0) s.resize(std::min<size_t>(s.size(), 60 - 4 * i));
  CAPTURE(seed, i);
  const webdb::Manifest before = Current(layered);
  ApplyBoth(layered, merged, s);
  Observe(before, Current(layered), seen);
  return s;
}

TEST_CASE("rounds forced to write runs stay under the cap and equal to merges", "[layered]") {
  for (uint64_t seed = 611; seed <= 614; ++seed) {
    ModelDb layered(WithLayers(webdb::LayerPolicy::kRun));
    ModelDb merged(WithLayers(webdb::LayerPolicy::kMerge));
    SessionGenerator gen(seed, SmallSessions());
    Layering seen;
    for (int i = 0; i < 12; ++i) ForcedRound(layered, merged, gen, seed, i, &seen);
    CHECK(seen.most_runs >= 2);
  }
}

TEST_CASE("rounds forced to seek write the runs rounds that walk write", "[layered][seeks]") {
  for (uint64_t seed = 631; seed <= 634; ++seed) {
    // Stage 3, which writes no table, is merged in key ranges too (each range seeking).
    webdb::WriterOptions seeks = WithLayers(webdb::LayerPolicy::kRun, webdb::SeekPolicy::kSeek);
    webdb::WriterOptions walks = WithLayers(webdb::LayerPolicy::kRun, webdb::SeekPolicy::kWalk);
    seeks.partition_rows = walks.partition_rows = 16;
    ModelDb seeking(seeks);
    ModelDb walking(walks);
    ModelDb merged(WithLayers(webdb::LayerPolicy::kMerge));
    SessionGenerator gen(seed, SmallSessions());
    Layering seen;
    for (int i = 0; i < 12; ++i) {
      REQUIRE(walking.Apply(ForcedRound(seeking, merged, gen, seed, i, &seen)).ok());
      // The same bytes: each run file's size, CRC and id.
      CHECK(Current(seeking).runs == Current(walking).runs);
      CHECK(seeking.Verify().empty());
    }
    CHECK(seen.absorbed);
  }
}

TEST_CASE("planned rounds forced to seek over many blocks equal merges", "[layered][seeks]") {
  ModelDb seeking(WithLayers(webdb::LayerPolicy::kPlan, webdb::SeekPolicy::kSeek));
  ModelDb merged(WithLayers(webdb::LayerPolicy::kMerge));
  SessionGenerator gen(641, ManyBlocks());
  const Layering seen = ShrinkingRounds(seeking, merged, gen);
  CHECK(seen.most_runs >= 3);
  CHECK(seen.absorbed);
}

TEST_CASE("a kept version with runs is read and rolled back to", "[layered][versions]") {
  ModelDb layered(WithLayers(webdb::LayerPolicy::kRun));
  ModelDb merged(WithLayers(webdb::LayerPolicy::kMerge));
  GenOptions gen_options;
  gen_options.universe_urls = 400;
  SessionGenerator gen(621, gen_options);
  for (int i = 0; i < 3; ++i) ApplyBoth(layered, merged, gen.Next());
  const webdb::Manifest kept = Current(layered);
  REQUIRE(kept.run_records(webdb::TableId::kPagesByUrl) > 0);
  auto want = layered.Dump();
  REQUIRE(want.has_value());
  // The default keep of two: the version before the current one is kept.
  REQUIRE(layered.Apply(gen.Next()).ok());
  REQUIRE(Current(layered).version > kept.version);
  REQUIRE(webdb::RollbackDb(layered.env(), layered.dir(), kept.version, {}).has_value());
  const webdb::Manifest back = Current(layered);
  CHECK(back.SameTables(kept));
  auto got = layered.Dump();
  REQUIRE(got.has_value());
  CHECK(CompareDumps(*want, *got).empty());
  CHECK(layered.Verify().empty());
}

}  // namespace
}  // namespace testutil
