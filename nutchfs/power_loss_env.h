// PowerLossEnv: an in-memory Env (the semantics of mem_env.h) that also keeps what a
// power loss would leave behind, for tests of crash safety beyond a killed process.
//
// Durability follows POSIX at its strictest, as on a file system that writes nothing
// back on its own:
//  - a file's contents are durable as of its last WritableFile::Sync (a file never
//    synced comes back empty; CreateExclusive's contents are synced by contract);
//  - a directory entry — a creation (of a file or a directory), a rename's old and new
//    name, a removal — is durable only once its directory is synced (SyncDir). A
//    rename between two directories whose target directory alone was synced leaves the
//    file under both names, as a real file system may.
// LosePower() discards everything not durable: the file system becomes what a reboot
// would find, and files opened before fail from then on (IOError "power lost").
//
// Crash points. While recording, every file sync, directory sync and rename is a point
// at which power may be cut; the env keeps the durable image of each, in order, so that
// one run yields every state a power cut could leave. A rename also yields a second
// point where the rename reached the disk though its directories were not synced (a
// file system may write a directory back at any time): what a protocol that renames
// before syncing the data would lose. Points whose durable state equals the point
// before share its image.
//
// Owns its file system; thread-safe (one mutex); its files follow env.h.
#ifndef NUTCHFS_POWER_LOSS_ENV_H_
#define NUTCHFS_POWER_LOSS_ENV_H_

#include <memory>
#include <string>
#include <vector>

#include "nutchfs/env.h"

namespace nutchfs {

// What a power loss at one moment leaves: an immutable snapshot, cheap to keep (file
// contents are shared, not copied).
class DurableImage;

struct CrashPoint {
  std::string event;  // "sync F", "sync directory D", "rename A to B[, ...]"
  std::shared_ptr<const DurableImage> image;
};

class PowerLossEnv : public Env {
 public:
  // Discards every change not durable; files opened before fail from now on.
  virtual void LosePower() = 0;
  // Starts (true) or stops keeping crash points.
  virtual void RecordCrashPoints(bool on) = 0;
  // The points kept since recording started or since the last call, in order.
  virtual std::vector<CrashPoint> TakeCrashPoints() = 0;
  // What a power loss now would leave.
  virtual std::shared_ptr<const DurableImage> Durable() = 0;
};

// An empty file system ("/" exists).
std::unique_ptr<PowerLossEnv> NewPowerLossEnv();
// The file system a power loss at `image` left: everything in it durable.
std::unique_ptr<PowerLossEnv> NewPowerLossEnv(const DurableImage& image);

}  // namespace nutchfs

#endif  // NUTCHFS_POWER_LOSS_ENV_H_
