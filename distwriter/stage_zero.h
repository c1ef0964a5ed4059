// The records of the stage 0 file a writer sends every peer at the start of a round
// (docs/DISTRIBUTED.md, "The round"; docs/FORMAT.md, "Stage 0 files"): its input digest
// and, for a db without url breakpoints yet, its sample of page urls. The file is an
// exchanged file (distwriter/exchange_file.h), so it names db, round, stage, sender and
// receiver in its label; its records are the digest (kind 0, empty key, the 32 hex
// digits as value) and one record per sample url (kind 1, the url as key, empty value).
//
// Free functions; thread-safe on distinct files.
#ifndef DISTWRITER_STAGE_ZERO_H_
#define DISTWRITER_STAGE_ZERO_H_

#include <string>
#include <vector>

#include "nutchfs/status.h"
#include "webdb/sort/edit_file.h"

namespace distwriter {

using nutchfs::Result;
using nutchfs::Status;

struct StageZero {
  std::string digest;             // 32 lowercase hex digits
  std::vector<std::string> urls;  // the url sample, valid urls (webdb::ValidateUrl)
  bool operator==(const StageZero&) const = default;
};

// Adds s's records to out and finishes it.
Status WriteStageZero(webdb::EditFileWriter& out, const StageZero& s);

// Reads a peer's stage 0 records from it, the file at path. Corruption naming path when
// the file is damaged, has no digest or more than one, or a sample url that is not a
// valid url: what a peer sends must not reach the round manifest unchecked.
Result<StageZero> ReadStageZero(webdb::EditIterator& it, const std::string& path);

}  // namespace distwriter

#endif  // DISTWRITER_STAGE_ZERO_H_
