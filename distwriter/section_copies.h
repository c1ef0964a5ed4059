// Where a writer's section lives with replicas (docs/DISTRIBUTED.md, "Replicas"): the
// copies of its files on the machines of its group w<i>, made and checked by size. A
// round names each section's holders, the machines with every file of it; only those are
// ever read.
//
// Stateless functions over a NutchFs; not thread-safe (a writer calls them from its one
// round thread).
#ifndef DISTWRITER_SECTION_COPIES_H_
#define DISTWRITER_SECTION_COPIES_H_

#include <string>
#include <vector>

#include "distwriter/dist_config.h"
#include "distwriter/round_manifest.h"
#include "nutchfs/nutchfs.h"
#include "webdb/db/manifest.h"

namespace distwriter {

// Makes every file of `section` (writer's: each table's base and runs) present at machine
// `to` with its recorded size, copying from machine `from` each one that is missing there
// or of another size. With check_bytes, a file found at `to` with its size is also read
// end to end against the
// size and CRC32C the section records (and copied again if it differs), and a file is
// read so at `from` before it is copied (Corruption naming it there if it differs): for
// copies made from a round's holders long after the round wrote them. `to` may be `from`:
// then a file missing there or of another size is Corruption naming it. Returns how many
// files it copied.
Result<int> CopySection(nutchfs::NutchFs& fs, const DistConfig& config, int writer,
                        const webdb::Manifest& section, const std::string& from,
                        const std::string& to, bool check_bytes = false);

// After stages 1..5 wrote `section` on this machine: copies it to every other machine of
// writer's group that is not left out as unreachable. A machine where that fails because
// it cannot be reached is left out (a warning names it) instead of failing the round.
// Returns the holders, in the group's order.
Result<std::vector<std::string>> ReplicateSection(nutchfs::NutchFs& fs, const DistConfig& config,
                                                  int writer, const webdb::Manifest& section);

// Where writer's section of round is read: the first of its holders, in the round's order,
// that is not left out and can be connected to (a connection that fails leaves that
// machine out). IOError naming the holders when none can.
Result<std::string> ReadableHolder(nutchfs::NutchFs& fs, const DistConfig& config,
                                   const RoundManifest& round, int writer);

}  // namespace distwriter

#endif  // DISTWRITER_SECTION_COPIES_H_
