// The stage table against the pipeline it describes (docs/DESIGN.md, "The five stages"):
// every stage takes its inputs from stages before it and hands its edits to stages
// after it, so that a driver running them in order finds everything ready.
#include "webdb/stages/stage_table.h"

#include <catch2/catch.hpp>
#include <set>

namespace {

using namespace webdb;

// The stage that last wrote table t before `stage`, or 0.
int WriterBefore(int stage, TableId t) {
  int last = 0;
  for (int s = 1; s < stage; ++s) {
    if (Stage(s).writes_table && Stage(s).table == t) last = s;
  }
  return last;
}

}  // namespace

TEST_CASE("stage table: names, tables and the order of the pipeline") {
  CHECK(std::string(StageName(1)) == "stage 1 pagesByURL");
  CHECK(std::string(StageName(5)) == "stage 5 linksByMD5 fixes");
  CHECK(std::string(StageName(0)) == "stage ?");
  CHECK(std::string(StageName(kNumStages + 1)) == "stage ?");
  // Each table is written once a session; linksByMD5 by the stage completing stage 3.
  std::set<TableId> written;
  for (int s = 1; s <= kNumStages; ++s) {
    if (!Stage(s).writes_table) continue;
    CHECK(written.insert(Stage(s).table).second);
  }
  CHECK(written.size() == static_cast<size_t>(kNumTables));
  CHECK_FALSE(Stage(3).writes_table);
  CHECK(Stage(5).completes == 3);
  CHECK(Stage(5).table == Stage(3).table);
}

TEST_CASE("stage table: inputs come from earlier stages, edits go to later ones") {
  for (int s = 1; s <= kNumStages; ++s) {
    const StageSpec& spec = Stage(s);
    INFO(spec.name);
    CHECK(spec.apply != nullptr);
    if (spec.joins) CHECK(WriterBefore(s, *spec.joins) > 0);
    if (spec.reads != Notices::kNone) {
      bool reported_before = false;
      for (int e = 1; e < s; ++e) reported_before |= Stage(e).reports == spec.reads;
      CHECK(reported_before);
    }
    for (int to : spec.emits_to) CHECK((to == 0 || (to > s && to <= kNumStages)));
    if (spec.completes != 0) CHECK((spec.completes < s && Stage(spec.completes).table == spec.table));
    CHECK(ReadAgain(s) == (s == 3));
  }
  // Stage 4 keeps its edits apart by the ranges of the new pagesByURL, written by stage 1.
  CHECK(Stage(4).split_by_joined);
  CHECK(WriterBefore(4, *Stage(4).joins) == 1);
}
