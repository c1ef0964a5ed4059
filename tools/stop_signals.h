// StopSignals: SIGTERM, SIGINT and SIGHUP, taken by a thread of their own instead of
// ending the process, so that a distributed writer told to stop (by `launch` stopping its
// writers, an operator, a closed terminal) fails its round cleanly: at its next wait or
// stage it tells its peers, retracts its stage 0 files, removes its work area and
// releases its LOCK (distwriter::RunOptions::stop), instead of leaving them for its next
// run. A second such signal while it stops is ignored (SIGKILL still ends it at once).
//
// Construct it before the process starts any other thread (they inherit the blocked
// signals); one at a time. The destructor ends the thread and unblocks the signals; one
// that came meanwhile stays pending and is then delivered as usual.
#ifndef TOOLS_STOP_SIGNALS_H_
#define TOOLS_STOP_SIGNALS_H_

#include <pthread.h>

#include <atomic>
#include <thread>

namespace tools {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // 0 until one of the signals came; then its number.
  const std::atomic<int>& signal() const { return signal_; }

 private:
  void Wait();

  std::atomic<int> signal_{0};
  std::atomic<bool> done_{false};
  sigset_t set_;
  std::thread thread_;
};

}  // namespace tools

#endif  // TOOLS_STOP_SIGNALS_H_
