// What `distwriter machines` and `distwriter config --get` print (docs/DISTRIBUTED.md,
// "Running it"): a cluster config as distwriter reads it, for scripts that must not parse
// the file themselves (scripts/launch-*.sh). Output formats are documented there.
// Free functions; thread-safe.
#ifndef TOOLS_CONFIG_QUERY_H_
#define TOOLS_CONFIG_QUERY_H_

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "distwriter/dist_config.h"

namespace tools {

// One line per writer, in index order, fields separated by one tab:
//   INDEX MACHINE SCHEME HOST PORT USER ROOT
// SCHEME is "local" or "ssh"; HOST, PORT and USER are "-" where there is none (a local
// machine; an ssh location without a user). IOError if out cannot be written.
nutchfs::Status PrintWriterMachines(const distwriter::DistConfig& config, std::FILE* out);

// The keys `distwriter config --get` reports, in order.
std::vector<std::string> ReportedConfigKeys();

// OK if `distwriter config --get` reports key; InvalidArgument naming the keys it does.
nutchfs::Status CheckConfigKey(std::string_view key);

// The value of one top-level key as distwriter uses it, on one line: the default when the
// file does not set it, sizes in bytes, ssh paths made absolute, booleans "true"/"false",
// an empty line for an ssh path left to libssh's default. REQUIRES: CheckConfigKey(key).
nutchfs::Status PrintConfigValue(const distwriter::DistConfig& config, std::string_view key,
                                 std::FILE* out);

}  // namespace tools

#endif  // TOOLS_CONFIG_QUERY_H_
