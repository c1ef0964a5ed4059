#include "nutchfs/arrival_watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <thread>

namespace nutchfs {
namespace {

// This thread's inotify instance, closed when the thread ends; -1 if none can be made.
int ThreadInotify() {
  struct Instance {
    int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    ~Instance() {
      if (fd >= 0) ::close(fd);
    }
  };
  static thread_local Instance instance;
  return instance.fd;
}

void Drain(int fd) {
  alignas(struct inotify_event) char buf[4096];
  while (::read(fd, buf, sizeof(buf)) > 0) {
  }
}

}  // namespace

ArrivalWatch::ArrivalWatch(std::string dir, bool use_inotify) : dir_(std::move(dir)) {
  if (!use_inotify) return;
  fd_ = ThreadInotify();
  if (fd_ >= 0) Drain(fd_);  // events left from this thread's earlier watches
}

ArrivalWatch::~ArrivalWatch() {
  if (wd_ >= 0) ::inotify_rm_watch(fd_, wd_);
}

void ArrivalWatch::Wait(std::chrono::milliseconds pause) {
  if (fd_ < 0) {
    std::this_thread::sleep_for(pause);
    return;
  }
  if (wd_ < 0) {
    wd_ = ::inotify_add_watch(fd_, dir_.c_str(), IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE);
    if (wd_ >= 0) return;
    std::this_thread::sleep_for(pause);
    return;
  }
  struct pollfd pfd = {fd_, POLLIN, 0};
  if (::poll(&pfd, 1, static_cast<int>(pause.count())) > 0) Drain(fd_);
}

}  // namespace nutchfs
