#include "nutchfs/status.h"

#include <cstring>

namespace nutchfs {

Status Status::FromErrno(std::string_view context, int err) {
  const char* name = ::strerrorname_np(err);
  return IOError(std::string(context) + ": " + std::strerror(err) +
                 (name != nullptr ? std::string(" (") + name + ")" : std::string()));
}

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kNotFound: name = "NotFound"; break;
    case Code::kCorruption: name = "Corruption"; break;
    case Code::kInvalidArgument: name = "Invalid argument"; break;
    case Code::kIOError: name = "IO error"; break;
    case Code::kBusy: name = "Busy"; break;
    case Code::kTimeout: name = "Timeout"; break;
    case Code::kRefused: name = "Refused"; break;
  }
  return std::string(name) + ": " + msg_;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, std::string(context) + ": " + msg_);
}

}  // namespace nutchfs
