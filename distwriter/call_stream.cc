#include "distwriter/call_stream.h"

namespace distwriter {

CallStream::CallStream(nutchfs::Env& env, std::string prefix, uint64_t file_bytes)
    : spool_(env, std::move(prefix), digest_, file_bytes),
      json_([this](std::string_view lines) { return spool_.Append(lines); }) {}

Status CallStream::Finish() {
  NUTCHFS_RETURN_IF_ERROR(json_.Flush());
  return spool_.Finish();
}

}  // namespace distwriter
