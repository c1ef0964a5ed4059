// The wall clock, in the unit every file format and lease of the project uses:
// milliseconds since the Unix epoch. Thread-safe.
#ifndef NUTCHFS_CLOCK_H_
#define NUTCHFS_CLOCK_H_

#include <cstdint>

namespace nutchfs {

int64_t NowMs();

}  // namespace nutchfs

#endif  // NUTCHFS_CLOCK_H_
