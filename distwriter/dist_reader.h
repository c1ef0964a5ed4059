// Reading a distributed db: a webdb::TableSource over the k sections of the committed
// round. Each table's iterator concatenates its sections in order; Seek goes straight to
// the section owning the key. Sections are opened where they live (locally, on an NFS
// mount, or over SFTP) through NutchFS. The round is read from the meta group's view
// (this machine if it is one of the writers', else writer 0's machine).
#ifndef DISTWRITER_DIST_READER_H_
#define DISTWRITER_DIST_READER_H_

#include <memory>
#include <string>

#include "distwriter/dist_config.h"
#include "distwriter/round_manifest.h"
#include "nutchfs/env.h"
#include "webdb/reader.h"

namespace distwriter {

// Opens the committed version of the distributed db described by the config file.
Result<std::unique_ptr<webdb::Reader>> OpenDistReader(const std::string& config_path);
// The same for a loaded config; env: tests only, as RunOptions::env (distwriter/round.h).
Result<std::unique_ptr<webdb::Reader>> OpenDistReader(const DistConfig& config,
                                                      nutchfs::Env* env = nullptr);

// The committed round manifest of that db, without opening a table (quick stats).
Result<RoundManifest> ReadCommittedRound(const std::string& config_path);

}  // namespace distwriter

#endif  // DISTWRITER_DIST_READER_H_
