#include "distwriter/create.h"

#include <fmt/format.h>

#include <sstream>

#include "distwriter/round_store.h"
#include "distwriter/section_copies.h"
#include "nutchfs/clock.h"
#include "nutchfs/nutchfs.h"
#include "webdb/db/versions.h"

namespace distwriter {
namespace {

Result<std::vector<std::string>> ReadSample(nutchfs::Env& env, const std::string& path, int k) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string text, nutchfs::ReadFileToString(env, path));
  std::vector<std::string> urls;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    Status s = webdb::ValidateUrl(line);
    if (!s.ok()) return Err(Status::InvalidArgument(fmt::format("{}:{}: {}", path, n, s.message())));
    urls.push_back(std::move(line));
  }
  if (urls.empty()) return Err(Status::InvalidArgument(path + ": the url sample is empty"));
  return Partition::ChooseBreakpoints(std::move(urls), k).map_error([&](Status s) {
    return s.WithContext(path);
  });
}

}  // namespace

Status CreateDistDb(const DistConfig& config, const std::string& sample_path, uint32_t keep,
                    nutchfs::Env* env) {
  nutchfs::NutchFsOptions fs_options;
  fs_options.env = env;
  NUTCHFS_ASSIGN_OR_RETURN(auto fs, nutchfs::NutchFs::Open(config.cluster, "", fs_options));
  RoundManifest round;
  round.version = 1;
  round.k = config.k;
  round.keep = keep;
  round.time_ms = nutchfs::NowMs();
  round.digests.assign(config.k, "");
  round.sections.assign(config.k, webdb::Manifest{});
  if (!sample_path.empty() && config.k > 1) {
    NUTCHFS_ASSIGN_OR_RETURN(round.breakpoints, ReadSample(fs->local_env(), sample_path, config.k));
  }
  RoundStore store(*fs, config, "/tmp");
  NUTCHFS_RETURN_IF_ERROR(store.CheckNoDb());
  // Each section's empty tables, made at its home and copied to its replicas, so that
  // every copy is the same bytes.
  for (int i = 0; i < config.k; ++i) {
    const std::string& home = config.writer_machines[i];
    NUTCHFS_ASSIGN_OR_RETURN(auto at,
                             fs->LocateAt(config.WriterFile(i, "section/CURRENT"), home));
    const std::string dir = at.path.substr(0, at.path.rfind('/'));
    NUTCHFS_ASSIGN_OR_RETURN(round.sections[i],
                             webdb::CreateEmptyTables(*at.env, dir).map_error([&](Status s) {
                               return s.WithContext(config.Describe(i));
                             }));
    for (const std::string& replica : config.GroupMachines(i)) {
      if (replica == home) continue;
      auto copied = CopySection(*fs, config, i, round.sections[i], home, replica);
      if (!copied) return copied.error().WithContext(config.Describe(i) + ": replica");
    }
  }
  return store.CreateEverywhere(round);
}

}  // namespace distwriter
