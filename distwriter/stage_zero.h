// The stage 0 file a writer sends every peer at the start of a round (docs/DISTRIBUTED.md,
// "The round"; docs/FORMAT.md, "Stage 0 files"): its input digest and, for a db without
// url breakpoints yet, its sample of page urls. An edit file (webdb/edit_file.h) whose
// records are the digest (kind 0, empty key, the 32 hex digits as value) and one record
// per sample url (kind 1, the url as key, empty value).
//
// Free functions; thread-safe on distinct files.
#ifndef DISTWRITER_STAGE_ZERO_H_
#define DISTWRITER_STAGE_ZERO_H_

#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "nutchfs/status.h"

namespace distwriter {

using nutchfs::Result;
using nutchfs::Status;

struct StageZero {
  std::string digest;             // 32 lowercase hex digits
  std::vector<std::string> urls;  // the url sample, valid urls (webdb::ValidateUrl)
  bool operator==(const StageZero&) const = default;
};

// Writes s to path (created or replaced), synced.
Status WriteStageZero(nutchfs::Env& env, const std::string& path, const StageZero& s);

// Reads a peer's stage 0 file. Corruption naming path when it is not a well-formed edit
// file, has no digest or more than one, or a sample url that is not a valid url: what a
// peer sends must not reach the round manifest unchecked.
Result<StageZero> ReadStageZero(nutchfs::Env& env, const std::string& path);

}  // namespace distwriter

#endif  // DISTWRITER_STAGE_ZERO_H_
