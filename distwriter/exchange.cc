#include "distwriter/exchange.h"

#include <fmt/format.h>

namespace distwriter {

Exchange::Exchange(nutchfs::NutchFs& fs, const DistConfig& config, int self, uint64_t round,
                   std::chrono::milliseconds timeout)
    : fs_(fs), config_(config), self_(self), round_(round), timeout_(timeout) {}

std::string Exchange::StageDir(int stage) const {
  if (stage == 0) return fmt::format("rounds/{}/s0", round_);
  return fmt::format("rounds/{}-{}/s{}", round_, token_, stage);
}

nutchfs::NutchFile Exchange::FileFor(int stage, int from, int to) const {
  return config_.WriterFile(to, fmt::format("{}/from-{}.edits", StageDir(stage), from));
}

Status Exchange::Send(int stage, int to, const std::string& local_path) {
  auto info = fs_.Put(local_path, FileFor(stage, self_, to));
  if (!info) {
    return info.error().WithContext(fmt::format("writer {}: stage {}: sending to {}", self_, stage,
                                                config_.Describe(to)));
  }
  traffic_[stage].bytes_sent += info->size;
  traffic_[stage].files_sent += 1;
  return Status::OK();
}

Result<std::string> Exchange::Receive(int stage, int from) {
  const nutchfs::NutchFile file = FileFor(stage, from, self_);
  const auto start = std::chrono::steady_clock::now();
  Status s = fs_.WaitFor(file, config_.Describe(from), timeout_);
  traffic_[stage].wait_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) {
    return Err(s.WithContext(fmt::format("writer {}: round {} stage {}", self_, round_, stage)));
  }
  return fs_.LocalPath(file);
}

Status Exchange::RemoveIncoming() {
  auto names = fs_.List(config_.db(), WriterGroup(self_), "rounds");
  if (!names) return names.error().IsNotFound() ? Status::OK() : names.error();
  for (const std::string& name : *names) {
    // "rounds/<N>[-token]/..." : remove whole round directories up to this round.
    const std::string rest = name.substr(name.find('/') + 1);
    const std::string dir = rest.substr(0, rest.find('/'));
    uint64_t n = 0;
    if (std::sscanf(dir.c_str(), "%lu", &n) != 1 || n > round_) continue;
    NUTCHFS_RETURN_IF_ERROR(fs_.DeleteDir(config_.WriterFile(self_, "rounds/" + dir)));
  }
  return Status::OK();
}

Status Exchange::RetractStageZero() {
  for (int to = 0; to < config_.k; ++to) {
    Status s = fs_.Delete(FileFor(0, self_, to));
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  return Status::OK();
}

Status DiscardIfCorrupt(nutchfs::Env& local, const std::string& path, Status status) {
  if (status.IsCorruption()) {
    Status ignored = local.RemoveFile(path);
    (void)ignored;  // the corruption is the error to report
  }
  return status;
}

}  // namespace distwriter
