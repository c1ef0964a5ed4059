// Reader pins: how a reader tells the db's garbage collector which version it reads, so
// that the files of that version are not deleted under it even when it falls out of the
// versions the db keeps (docs/DESIGN.md, "Retained versions").
//
// A pin is a lock file (nutchfs/lock_file.h: created whole by exclusive creation, holding
// the reader's host, boot id, pid and start time) at DB/readers/<version>-<pid>-<random>.
// It lives as long as the VersionPin object. No flock or fcntl: pins are plain files, so
// they work on local disks, NFS and over SFTP alike, for readers on any machine.
//
// A pin is stale — and ignored and removed by the collector — when the stale-lock rule
// (nutchfs/lock_owner.h) says its holder is gone: its process on this host has ended or
// the host rebooted since; a pin of another host is honoured for kPinLeaseMs after it was
// made (its process cannot be checked from here). VersionPin is not thread-safe; the
// functions are stateless and thread-safe as the Env is.
#ifndef WEBDB_DB_VERSION_PIN_H_
#define WEBDB_DB_VERSION_PIN_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "nutchfs/env.h"
#include "nutchfs/scoped_lock.h"

namespace webdb {

using nutchfs::Result;
using nutchfs::Status;

// How long a pin made on another host is honoured: 24 hours.
constexpr int64_t kPinLeaseMs = int64_t{24} * 3600 * 1000;

class VersionPin {
 public:
  // Pins version of the db at dir (creating dir/readers if needed).
  static Result<std::unique_ptr<VersionPin>> Create(nutchfs::Env& env, const std::string& dir,
                                                    uint64_t version);
  VersionPin(const VersionPin&) = delete;
  VersionPin& operator=(const VersionPin&) = delete;
  ~VersionPin() = default;  // the lock's destructor removes the pin file

  uint64_t version() const { return version_; }

 private:
  VersionPin(uint64_t version, std::unique_ptr<nutchfs::ScopedLock> lock)
      : version_(version), lock_(std::move(lock)) {}

  const uint64_t version_;
  std::unique_ptr<nutchfs::ScopedLock> lock_;
};

// The versions of the db at dir pinned by live readers, with the number of pins each.
// With remove_stale, the pins of readers that are gone are removed as they are found.
Result<std::map<uint64_t, int>> LivePins(nutchfs::Env& env, const std::string& dir, int64_t now_ms,
                                         bool remove_stale);

// The name of dir's pin directory, for the files a db directory may hold.
inline constexpr const char* kReadersDir = "readers";

}  // namespace webdb

#endif  // WEBDB_DB_VERSION_PIN_H_
