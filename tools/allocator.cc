#include "tools/allocator.h"

#include <malloc.h>

namespace tools {

void KeepFreedMemory() {
  // Setting the mapping threshold fixes it (glibc no longer adjusts it), and the trim
  // threshold must then be set too: its default would give back the heap's top.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
}

}  // namespace tools
