#include "tools/stop_signals.h"

#include <signal.h>

namespace tools {

// SIGUSR1 is how the destructor wakes the thread: it is not one of the stop signals.
StopSignals::StopSignals() {
  sigemptyset(&set_);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&set_, sig);
  ::pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  thread_ = std::thread([this] { Wait(); });
}

StopSignals::~StopSignals() {
  done_ = true;
  ::pthread_kill(thread_.native_handle(), SIGUSR1);
  thread_.join();
  ::pthread_sigmask(SIG_UNBLOCK, &set_, nullptr);
}

void StopSignals::Wait() {
  for (;;) {
    int sig = 0;
    if (::sigwait(&set_, &sig) != 0) continue;
    if (sig == SIGUSR1) {
      if (done_) return;
      continue;
    }
    int none = 0;
    signal_.compare_exchange_strong(none, sig);
  }
}

}  // namespace tools
