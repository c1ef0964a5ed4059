// An Env that keeps every file and directory in memory, for tests: the same semantics as
// the local Env (parents must exist, O_EXCL creation, atomic rename that replaces files
// and moves directory trees, open files surviving removal and replacement), no disk.
//
// Paths must be absolute ("/a/b"); "/" always exists. Each NewMemEnv() is a separate,
// initially empty file system. The Env is thread-safe; its files follow env.h.
#ifndef NUTCHFS_MEM_ENV_H_
#define NUTCHFS_MEM_ENV_H_

#include <memory>

#include "nutchfs/env.h"

namespace nutchfs {

std::unique_ptr<Env> NewMemEnv();

}  // namespace nutchfs

#endif  // NUTCHFS_MEM_ENV_H_
