// The Env calls that change the disk, as the I/O-error tests fail them one at a time,
// with the names their failure reports use.
#ifndef TEST_UTIL_FAULT_OPS_H_
#define TEST_UTIL_FAULT_OPS_H_

#include "nutchfs/fault_env.h"

namespace testutil {

struct WriteOp {
  nutchfs::FaultOp op;
  const char* name;
};

inline constexpr WriteOp kWriteOps[] = {
    {nutchfs::FaultOp::kNewWritable, "create"}, {nutchfs::FaultOp::kAppend, "write"},
    {nutchfs::FaultOp::kSync, "sync"},          {nutchfs::FaultOp::kClose, "close"},
    {nutchfs::FaultOp::kRename, "rename"},      {nutchfs::FaultOp::kSyncDir, "sync directory"},
    {nutchfs::FaultOp::kCreateDirs, "mkdir"},   {nutchfs::FaultOp::kCreateExclusive, "lock"}};

}  // namespace testutil

#endif  // TEST_UTIL_FAULT_OPS_H_
