#include "tools/writer_rank.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

namespace tools {
namespace {

EnvLookup From(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST_CASE("no scheduler variable: no rank") {
  auto rank = RankFromEnvironment(From({{"HOME", "/root"}}));
  REQUIRE(rank);
  CHECK_FALSE(rank->has_value());
}

TEST_CASE("each scheduler's variable gives the writer and is named") {
  for (const char* name : {"SLURM_ARRAY_TASK_ID", "SLURM_PROCID", "JOB_COMPLETION_INDEX"}) {
    CAPTURE(name);
    auto rank = RankFromEnvironment(From({{name, "7"}}));
    REQUIRE(rank);
    REQUIRE(rank->has_value());
    CHECK((*rank)->writer == 7);
    CHECK((*rank)->source == name);
  }
}

TEST_CASE("a job array's task id wins over the rank of its one task") {
  // sbatch --array gives every task SLURM_PROCID=0 and its own SLURM_ARRAY_TASK_ID.
  auto rank = RankFromEnvironment(
      From({{"SLURM_PROCID", "0"}, {"SLURM_ARRAY_TASK_ID", "2"}, {"JOB_COMPLETION_INDEX", "5"}}));
  REQUIRE(rank);
  CHECK((*rank)->writer == 2);
  CHECK((*rank)->source == "SLURM_ARRAY_TASK_ID");
  auto srun = RankFromEnvironment(From({{"SLURM_PROCID", "1"}, {"JOB_COMPLETION_INDEX", "5"}}));
  REQUIRE(srun);
  CHECK((*srun)->source == "SLURM_PROCID");
}

TEST_CASE("a value that is no writer index is refused, naming the variable") {
  for (const char* bad : {"", "-1", "x", "1x", " 1", "99999999999"}) {
    CAPTURE(bad);
    auto rank = RankFromEnvironment(From({{"SLURM_PROCID", bad}}));
    REQUIRE_FALSE(rank);
    CHECK(rank.error().IsInvalidArgument());
    CHECK_THAT(rank.error().message(), Catch::Contains("SLURM_PROCID"));
  }
}

}  // namespace
}  // namespace tools
