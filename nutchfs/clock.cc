#include "nutchfs/clock.h"

#include <chrono>

namespace nutchfs {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace nutchfs
