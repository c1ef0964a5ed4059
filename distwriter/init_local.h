// The cluster config of `distwriter init-local`: k writer processes on this host, each
// with its own root directory <root>/m<i> (docs/DISTRIBUTED.md, "Running it"). The file
// is published by write-temp + sync + rename; nothing already at its path is replaced
// unless asked, and then only a regular file (never a symlink, a FIFO or a device). Only
// configs every command loads are written: 1..kMaxWriters writers, a plain db name.
// Stateless; thread-safe as the Env is.
#ifndef DISTWRITER_INIT_LOCAL_H_
#define DISTWRITER_INIT_LOCAL_H_

#include <string>

#include "nutchfs/env.h"

namespace distwriter {

using nutchfs::Status;

struct InitLocalOptions {
  int writers = 0;
  std::string root;  // made absolute
  std::string out;   // the config file to write
  std::string db = "webdb";
  bool force = false;  // replace a regular file at out
};

// The config text for o (root already absolute).
std::string LocalConfigText(const InitLocalOptions& o);

// Creates o.root and writes the config to o.out through env (the local file system:
// o.out is a local path). InvalidArgument, touching nothing, if the config would not
// load, or if something is at o.out and o.force is not set or it is no regular file.
Status InitLocal(nutchfs::Env& env, InitLocalOptions o);

}  // namespace distwriter

#endif  // DISTWRITER_INIT_LOCAL_H_
