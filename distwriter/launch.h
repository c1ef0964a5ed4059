// Launch: starts all k writers of a round — a local child process for a writer whose
// machine is a local directory, `ssh [-p port] [user@]host distwriter run ...` for one
// reached over ssh — waits for all, and reports per-writer and per-stage times and
// bytes exchanged. The call stream (the concatenation of the call files) is cut into
// k contiguous slices of about equal line counts; slice i is published into writer i's
// share group, so it is on writer i's machine however that is reached. When a writer
// fails, the others are stopped (an ssh writer on its own host, when its ssh client's
// input ends), and the stage 0 files of every writer that did not succeed are
// retracted, so that a rerun with other inputs cannot meet them. A rank round
// (docs/DISTRIBUTED.md, "Rank rounds") starts `distwriter rank` on every machine instead,
// with no calls.
#ifndef DISTWRITER_LAUNCH_H_
#define DISTWRITER_LAUNCH_H_

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "distwriter/call_stream.h"
#include "distwriter/dist_config.h"
#include "webdb/db/manifest.h"
#include "webdb/util/progress.h"

namespace distwriter {

struct LaunchOptions {
  std::string config_path;  // absolute: writers on other machines read the same path
  std::vector<std::string> call_files;
  // The round's calls streamed by their producer (finished), instead of call_files.
  CallStream* calls = nullptr;
  // The distwriter binary a writer's machine runs when the config names none
  // (DistConfig::distwriter_binary): `distwriter launch` gives its own path, `webdb`
  // "distwriter", found through PATH.
  std::string distwriter_binary;
  std::vector<std::string> run_flags;  // passed on to every `run` (--memory, --quiet, ...)
  // A rank round with these options instead of a round of call_files (which is empty).
  std::optional<webdb::RankOptions> rank;
  // The round's session (docs/DISTRIBUTED.md, "Sessions"); empty: the launch draws one
  // and keeps it in the launch record until it succeeds.
  std::string session;
  bool json = false;  // the report as one JSON object (docs/DISTRIBUTED.md) instead of a table
  // Launch's own steps (slicing the calls, writers finished); may be empty. The writers
  // report theirs on their stderr unless run_flags has --quiet.
  webdb::ProgressFn progress;
};

// Fails (naming the writers) if any writer fails; prints the report to out (none when
// out is null).
Status Launch(const DistConfig& config, const LaunchOptions& options, std::FILE* out);

}  // namespace distwriter

#endif  // DISTWRITER_LAUNCH_H_
