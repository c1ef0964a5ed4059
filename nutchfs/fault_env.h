// FaultEnv: an Env wrapper that injects failures into chosen operations of another Env,
// for tests of what callers do when storage or the network misbehaves.
//
// Operations of each kind are counted from 1 from the moment Inject is called; a fault
// fires on the nth one and on the `times - 1` that follow (times < 0: every one after).
// Kinds of fault:
//   kError     the operation returns IOError("injected fault: ...") and does nothing; or,
//              with an errno (ENOSPC, EIO, EDQUOT, ...), the IOError the local Env gives
//              for a system call failing so: "<operation> <path>: <strerror> (<ENAME>)"
//              (ENOENT: NotFound, "<operation> <path>: no such file or directory").
//   kDrop      it returns OK and does nothing (a lost rename, remove or sync).
//   kTruncate  (kNewWritable only) the file opens, every Append and Close report OK, but
//              only the first `keep_bytes` bytes reach the file: a silently cut transfer.
// An Append that fails with kError still writes its first half, like a write cut off in
// the middle. CopyWithin is Env's streaming default, so faults hit its steps too.
// A fault may be limited to paths under a prefix: one machine's disk filling up when one
// Env holds every machine's root.
// The wrapped Env is not owned and must outlive the FaultEnv.
// Thread-safe; the counters are shared by all threads.
#ifndef NUTCHFS_FAULT_ENV_H_
#define NUTCHFS_FAULT_ENV_H_

#include <cstdint>
#include <memory>
#include <string>

#include "nutchfs/env.h"

namespace nutchfs {

enum class FaultOp {
  kNewSequential,
  kNewRandomAccess,
  kNewWritable,
  kCreateExclusive,
  kRead,  // SequentialFile::Read and RandomAccessFile::Read
  kAppend,
  kSync,  // WritableFile::Sync
  kClose,
  kGetFileSize,
  kGetChildren,
  kRename,
  kRemove,
  kCreateDirs,
  kSyncDir,
};

enum class FaultKind { kError, kDrop, kTruncate };

struct FaultSpec {
  FaultOp op = FaultOp::kRename;
  int nth = 1;  // 1: the next operation of that kind
  FaultKind kind = FaultKind::kError;
  int times = 1;            // how many consecutive operations fail; < 0: all from nth on
  uint64_t keep_bytes = 0;  // kTruncate only
  int error = 0;            // kError: the errno reported; 0: "injected fault"
  // Only operations on paths beginning with this count and fail (a rename: its source);
  // empty: every path.
  std::string path_prefix{};
};

class FaultEnv : public Env {
 public:
  // Replaces any earlier fault for spec.op and restarts that op's counter. InvalidArgument
  // for kDrop on an operation that returns data, or kTruncate on anything but kNewWritable.
  virtual Status Inject(const FaultSpec& spec) = 0;
  // Removes every fault; operations pass through again.
  virtual void Clear() = 0;
  // How many faults have fired since creation or the last Clear, over all operations.
  virtual int fired() const = 0;
  // How many operations of that kind the fault armed for it has counted (0 if none is
  // armed): with nth beyond reach, the number of calls a run makes.
  virtual int seen(FaultOp op) const = 0;
};

// REQUIRES: base outlives the result.
std::unique_ptr<FaultEnv> NewFaultEnv(Env* base);

}  // namespace nutchfs

#endif  // NUTCHFS_FAULT_ENV_H_
