// Env's default CopyWithin: a streaming copy through the Env's own file objects, so a
// wrapping Env (FaultEnv) sees, and can fail, every step.
#include "nutchfs/env.h"

#include <memory>

namespace nutchfs {

Status Env::CopyWithin(const std::string& from, const std::string& to) {
  constexpr size_t kChunk = 256 << 10;
  NUTCHFS_ASSIGN_OR_RETURN(auto in, NewSequentialFile(from));
  NUTCHFS_ASSIGN_OR_RETURN(auto out, NewWritableFile(to));
  std::unique_ptr<char[]> scratch(new char[kChunk]);
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view chunk, in->Read(kChunk, scratch.get()));
    if (chunk.empty()) break;
    NUTCHFS_RETURN_IF_ERROR(out->Append(chunk));
  }
  NUTCHFS_RETURN_IF_ERROR(out->Sync());
  return out->Close();
}

}  // namespace nutchfs
