// Creating a distributed db: every writer's section with empty tables, on its machine,
// and round manifest version 1 (with url breakpoints from a sample, if given) installed
// on every writer's machine. Refuses to overwrite an existing db; a creation cut short
// (installed on some machines only) is done again.
#ifndef DISTWRITER_CREATE_H_
#define DISTWRITER_CREATE_H_

#include <cstdint>
#include <string>

#include "distwriter/dist_config.h"
#include "nutchfs/env.h"
#include "webdb/db/manifest.h"

namespace distwriter {

// sample_path: a file of urls, one per line (empty: choose breakpoints in round 1);
// keep: the rounds kept readable (round_versions.h), 1..webdb::kMaxKeep.
// env: as RunOptions::env (distwriter/round.h); when given, /tmp must exist in it.
Status CreateDistDb(const DistConfig& config, const std::string& sample_path,
                    uint32_t keep = webdb::kDefaultKeep, nutchfs::Env* env = nullptr);

}  // namespace distwriter

#endif  // DISTWRITER_CREATE_H_
