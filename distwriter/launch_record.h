// LaunchRecord: the session of a `distwriter launch` that has not succeeded yet, kept as
// meta/LAUNCH at the meta group's home (writer 0's machine) so that the next launch of
// the same call stream continues it (docs/DISTRIBUTED.md, "Sessions"; the format is
// docs/FORMAT.md, "Launch record"). The one unit that reads and writes that file.
// Value type plus free functions; not thread-safe (a NutchFs is not).
#ifndef DISTWRITER_LAUNCH_RECORD_H_
#define DISTWRITER_LAUNCH_RECORD_H_

#include <optional>
#include <string>
#include <string_view>

#include "distwriter/dist_config.h"
#include "nutchfs/nutchfs.h"

namespace distwriter {

struct LaunchRecord {
  std::string stream;   // XXH3-128 of the call stream, 32 lowercase hex digits
  std::string session;  // the session its writers were given, 32 lowercase hex digits

  // The text form of docs/FORMAT.md, ending in its checksum line.
  std::string Encode() const;
  // path is only used in error messages: Corruption "<path>:<line>: why".
  static Result<LaunchRecord> Decode(std::string_view text, const std::string& path);
  bool operator==(const LaunchRecord&) const = default;
};

// A new session: 128 bits from the system's random source, as 32 lowercase hex digits.
Result<std::string> NewSession();

// The record at the meta group's home, or nullopt when there is none.
Result<std::optional<LaunchRecord>> ReadLaunchRecord(nutchfs::NutchFs& fs,
                                                     const DistConfig& config);
// Writes it there (write-temp, sync, rename).
Status WriteLaunchRecord(nutchfs::NutchFs& fs, const DistConfig& config,
                         const LaunchRecord& record);
// Removes it (OK when there is none).
Status RemoveLaunchRecord(nutchfs::NutchFs& fs, const DistConfig& config);

}  // namespace distwriter

#endif  // DISTWRITER_LAUNCH_RECORD_H_
