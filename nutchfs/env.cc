// Env's default CopyWithin: a streaming copy through the Env's own file objects, so a
// wrapping Env (FaultEnv) sees, and can fail, every step. And CreateDirsDurably.
#include "nutchfs/env.h"

#include <memory>

#include "nutchfs/publish.h"

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

Status CreateDirsDurably(Env& env, const std::string& dir) {
  // The directories to make, outermost last.
  std::vector<std::string> missing;
  for (std::string d = dir; !env.FileExists(d); d = DirOf(d)) {
    missing.push_back(d);
    if (d == "/" || d == ".") break;
  }
  if (missing.empty()) return Status::OK();
  NUTCHFS_RETURN_IF_ERROR(env.CreateDirs(dir));
  for (auto d = missing.rbegin(); d != missing.rend(); ++d) {
    NUTCHFS_RETURN_IF_ERROR(env.SyncDir(DirOf(*d)));
  }
  return Status::OK();
}

}  // namespace nutchfs
