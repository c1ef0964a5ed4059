#include "nutchfs/arrival_watch.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <thread>

namespace nutchfs {

ArrivalWatch::ArrivalWatch(std::string dir, bool use_inotify) : dir_(std::move(dir)) {
  if (use_inotify) fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
}

ArrivalWatch::~ArrivalWatch() {
  if (fd_ >= 0) ::close(fd_);
}

void ArrivalWatch::Wait(std::chrono::milliseconds pause) {
  if (fd_ < 0) {
    std::this_thread::sleep_for(pause);
    return;
  }
  if (!watching_) {
    watching_ =
        ::inotify_add_watch(fd_, dir_.c_str(), IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) >= 0;
    if (watching_) return;
    std::this_thread::sleep_for(pause);
    return;
  }
  struct pollfd pfd = {fd_, POLLIN, 0};
  if (::poll(&pfd, 1, static_cast<int>(pause.count())) <= 0) return;
  alignas(struct inotify_event) char buf[4096];
  while (::read(fd_, buf, sizeof(buf)) > 0) {
  }
}

}  // namespace nutchfs
