// Fuzzes reading edit files (webdb/sort/edit_file.h): the writer's session log, the sorter's
// runs and every file the distributed writer receives from a peer. Frame crcs, payload
// byte count and file crc are repaired first so that mutations reach the records.
// Properties: no crash; errors are Corruption naming the file; reading with a tiny
// buffer gives the same edits and status as with the default one; a sorted file yields
// edits in (key, order) order; a file read cleanly agrees with ReadEditFileInfo, and its
// edits written again read back the same.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "webdb/sort/edit_file.h"

namespace {

constexpr char kPath[] = "/w/in/stage1-from-0.edits";

struct Edit {
  std::string key;
  uint64_t order;
  uint8_t kind;
  std::string value;
  bool operator==(const Edit&) const = default;
};

struct Read {
  std::vector<Edit> edits;
  nutchfs::Status status;
};

Read ReadAll(nutchfs::Env& env, const std::string& path, size_t buffer) {
  Read r;
  auto it = webdb::OpenEditFile(env, path, buffer);
  if (!it) {
    r.status = it.error();
    return r;
  }
  for (; (*it)->Valid(); (*it)->Next()) {
    const webdb::EditView& e = (*it)->edit();
    r.edits.push_back({std::string(e.key), e.order, e.kind, std::string(e.value)});
  }
  r.status = (*it)->status();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(fuzzutil::AsView(data, size));
  fuzzutil::RepairEditFileChecksums(&bytes);
  auto env = fuzzutil::EnvWithFile(kPath, bytes);

  const Read big = ReadAll(*env, kPath, webdb::kEditReadBufferSize);
  const Read small = ReadAll(*env, kPath, 7);
  FUZZ_CHECK(big.edits == small.edits);
  FUZZ_CHECK_MSG(big.status.ToString() == small.status.ToString(),
                 big.status.ToString() + " vs " + small.status.ToString());
  auto info = webdb::ReadEditFileInfo(*env, kPath);
  if (!big.status.ok()) {
    FUZZ_CHECK_MSG(big.status.IsCorruption(), big.status.ToString());
    FUZZ_CHECK_MSG(big.status.message().starts_with(kPath), big.status.ToString());
    if (!info) FUZZ_CHECK_MSG(info.error().IsCorruption(), info.error().ToString());
    return 0;
  }
  FUZZ_CHECK_MSG(info.has_value(), info ? "" : info.error().ToString());
  FUZZ_CHECK(info->count == big.edits.size());
  FUZZ_CHECK(info->file_size == bytes.size());
  if (info->sorted) {
    for (size_t i = 1; i < big.edits.size(); ++i) {
      const Edit& a = big.edits[i - 1];
      const Edit& b = big.edits[i];
      FUZZ_CHECK(a.key < b.key || (a.key == b.key && a.order <= b.order));
    }
  }

  FUZZ_CHECK(env->CreateDirs("/w/out").ok());
  const std::string out = "/w/out/copy.edits";
  auto writer = webdb::EditFileWriter::Create(*env, out, info->sorted);
  FUZZ_CHECK(writer.has_value());
  for (const Edit& e : big.edits)
    FUZZ_CHECK((*writer)->Add({e.key, e.order, e.kind, e.value}).ok());
  FUZZ_CHECK((*writer)->Finish(/*sync=*/false).ok());
  const Read copy = ReadAll(*env, out, webdb::kEditReadBufferSize);
  FUZZ_CHECK(copy.status.ok() && copy.edits == big.edits);
  return 0;
}
