// Which writer `distwriter run` is when --writer is not given: the rank a scheduler gives
// each task of a job (docs/DISTRIBUTED.md, "Schedulers"). The variables are read in
// order: SLURM_ARRAY_TASK_ID (a Slurm job array, one task a writer; its tasks also have
// SLURM_PROCID 0), SLURM_PROCID (the rank of an srun task), JOB_COMPLETION_INDEX (a
// Kubernetes Indexed Job). Pure functions of the lookup they are given; thread-safe.
#ifndef TOOLS_WRITER_RANK_H_
#define TOOLS_WRITER_RANK_H_

#include <functional>
#include <optional>
#include <string>

#include "nutchfs/status.h"

namespace tools {

struct WriterRank {
  int writer = 0;
  std::string source;  // "--writer" or the variable it came from
};

// The environment as a lookup: nullptr for a variable that is not set.
using EnvLookup = std::function<const char*(const char*)>;

// The first of the scheduler's variables that is set; nullopt when none is.
// InvalidArgument naming the variable when its value is not an integer in 0..INT_MAX.
nutchfs::Result<std::optional<WriterRank>> RankFromEnvironment(const EnvLookup& lookup);

}  // namespace tools

#endif  // TOOLS_WRITER_RANK_H_
