// The rank engine's memory (webdb/rank/rank_engine.h): the accumulators of a block are
// borrowed from the budget's pool, which the streams' sorters share, so that nothing the
// rank holds beside the sorters grows with the db beyond the budget.
#include "webdb/rank/rank_engine.h"

#include <catch2/catch.hpp>

#include "test/util/rank_graph.h"
#include "test/util/session.h"
#include "test/util/temp_dir.h"
#include "webdb/db/writer.h"
#include "webdb/rank/rank_math.h"

namespace webdb {
namespace {

// The single-machine plumbing, which notes what its pool holds whenever the engine opens
// a sums broadcast: in pass B, while a block's accumulators are in use.
class WatchedPlumbing final : public RankPlumbing {
 public:
  WatchedPlumbing(nutchfs::Env& env, std::string work_dir, size_t budget)
      : local_(env, std::move(work_dir), budget) {}

  int writers() const override { return local_.writers(); }
  int self() const override { return local_.self(); }
  Result<std::vector<std::string>> Share(int step, std::string mine) override {
    return local_.Share(step, std::move(mine));
  }
  EditSink& Sink(RankStream s) override { return local_.Sink(s); }
  Result<std::unique_ptr<EditIterator>> Incoming(RankStream s) override {
    return local_.Incoming(s);
  }
  void Done(RankStream s) override { local_.Done(s); }
  Result<EditSink*> BroadcastSink(int n) override { return local_.BroadcastSink(n); }
  Status SendBroadcast(int n) override { return local_.SendBroadcast(n); }
  Result<std::unique_ptr<EditIterator>> OpenBroadcast(int n, int from) override {
    if (n >= 1) {
      taken_in_pass_b = std::max(taken_in_pass_b, memory().taken());
      held_in_pass_b = std::max(held_in_pass_b, memory().taken() + memory().kept());
    }
    return local_.OpenBroadcast(n, from);
  }
  Status DropBroadcast(int n) override { return local_.DropBroadcast(n); }
  SortMemory& memory() override { return local_.memory(); }

  size_t taken_in_pass_b = 0;  // the most the pool had taken
  size_t held_in_pass_b = 0;   // the most it held: taken and kept
 private:
  LocalRankPlumbing local_;
};

TEST_CASE("a block's accumulators are borrowed from the budget's pool", "[rank]") {
  testutil::TempDir tmp;
  auto env = nutchfs::NewLocalEnv();
  const std::string dir = tmp.File("db");
  REQUIRE(Writer::Create(*env, dir).ok());
  const testutil::RankGraph graph = testutil::RankGraph::Random(7, 1000, 700, 6, false);
  REQUIRE(testutil::RunSession(*env, dir, graph.ToSession()).ok());
  auto old = ReadCurrentManifest(*env, dir);
  REQUIRE(old.has_value());

  // A budget the edges stream fills (so that the pool keeps its mappings after it) and
  // blocks of a quarter of it: the pool must hold the accumulators among its bytes.
  const size_t budget = 16 << 10;
  const uint64_t block_ids = budget / 4 / sizeof(Fixed);
  RankParams params;
  params.dir = dir;
  params.manifest = ManifestFileName(old->version);
  params.work_dir = tmp.File("work");
  REQUIRE(env->CreateDirs(params.work_dir).ok());
  params.new_version = old->version + 1;
  params.memory_budget = budget;
  params.block_ids = block_ids;
  WatchedPlumbing plumbing(*env, params.work_dir, budget);
  auto outcome = RunRank(*env, *old, params, plumbing);
  INFO((outcome ? "" : outcome.error().ToString()));
  REQUIRE(outcome.has_value());
  REQUIRE(outcome->pages > block_ids);
  CHECK(plumbing.taken_in_pass_b >= block_ids * sizeof(Fixed));
  CHECK(plumbing.held_in_pass_b <= budget);
  // Given back, and kept for the scores stream's sorter.
  CHECK(plumbing.memory().taken() == 0);
}

}  // namespace
}  // namespace webdb
