#include "webdb/util/deferred_syncs.h"

#include <utility>

namespace webdb {

DeferredSyncs::~DeferredSyncs() { static_cast<void>(Wait()); }

void DeferredSyncs::Add(std::unique_ptr<nutchfs::WritableFile> file, std::string context) {
  auto sync = [file = std::move(file), context = std::move(context)]() -> Status {
    Status s = file->Sync();
    if (s.ok()) s = file->Close();
    return s.ok() ? s : s.WithContext(context);
  };
  std::lock_guard<std::mutex> lock(mu_);
  pending_.push_back(std::async(std::launch::async, std::move(sync)));
}

Status DeferredSyncs::Wait() {
  std::vector<std::future<Status>> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending.swap(pending_);
  }
  Status first;
  for (std::future<Status>& f : pending) {
    Status s = f.get();
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  return first;
}

}  // namespace webdb
