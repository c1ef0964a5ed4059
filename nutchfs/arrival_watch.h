// ArrivalWatch: the pause between two polls for a file's arrival in a directory. It
// sleeps for the given time, or less when inotify (the optional local fast path) reports
// that something was created in or renamed into the directory. Callers always poll
// again afterwards: inotify sees nothing that other machines do on NFS or sshfs.
//
// The directory need not exist yet; the watch is added once it does. Each thread keeps
// one inotify instance for its whole life, because closing one waits for an RCU grace
// period (measured 10-20 ms here, longer than the waits it serves); an ArrivalWatch adds
// its watch to its thread's instance and removes it when destroyed.
// Not thread-safe; at most one ArrivalWatch alive per thread.
#ifndef NUTCHFS_ARRIVAL_WATCH_H_
#define NUTCHFS_ARRIVAL_WATCH_H_

#include <chrono>
#include <string>

namespace nutchfs {

class ArrivalWatch {
 public:
  // use_inotify false: plain sleeps (backends without Capabilities::inotify).
  ArrivalWatch(std::string dir, bool use_inotify);
  ~ArrivalWatch();
  ArrivalWatch(const ArrivalWatch&) = delete;
  ArrivalWatch& operator=(const ArrivalWatch&) = delete;

  // Returns after `pause`, or earlier on an event in the directory, or at once when the
  // watch was only just added (an arrival just before it would have gone unseen).
  void Wait(std::chrono::milliseconds pause);

 private:
  const std::string dir_;
  int fd_ = -1;  // this thread's inotify instance, or -1
  int wd_ = -1;  // the watch on dir_, once added
};

}  // namespace nutchfs

#endif  // NUTCHFS_ARRIVAL_WATCH_H_
