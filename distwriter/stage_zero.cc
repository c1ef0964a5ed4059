#include "distwriter/stage_zero.h"

#include "webdb/sort/edit_file.h"
#include "webdb/table/record.h"

namespace distwriter {
namespace {

constexpr uint8_t kDigestRecord = 0, kSampleRecord = 1;

bool IsLowerHex(std::string_view s) {
  return s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

Status WriteStageZero(webdb::EditFileWriter& out, const StageZero& s) {
  NUTCHFS_RETURN_IF_ERROR(out.Add({"", 0, kDigestRecord, s.digest}));
  for (const std::string& url : s.urls) {
    NUTCHFS_RETURN_IF_ERROR(out.Add({url, 0, kSampleRecord, {}}));
  }
  return out.Finish();
}

Result<StageZero> ReadStageZero(webdb::EditIterator& it, const std::string& path) {
  StageZero s;
  bool has_digest = false;
  for (; it.Valid(); it.Next()) {
    const webdb::EditView& e = it.edit();
    if (e.kind == kDigestRecord) {
      if (has_digest) return nutchfs::Err(Status::Corruption(path + ": two input digests"));
      has_digest = true;
      s.digest.assign(e.value);
    } else if (e.kind == kSampleRecord) {
      Status valid = webdb::ValidateUrl(e.key);
      if (!valid.ok()) {
        return nutchfs::Err(Status::Corruption(path + ": bad sample url: " + valid.message()));
      }
      s.urls.emplace_back(e.key);
    }
  }
  NUTCHFS_RETURN_IF_ERROR(it.status());
  if (!has_digest || s.digest.size() != 32 || !IsLowerHex(s.digest)) {
    return nutchfs::Err(Status::Corruption(path + ": no input digest"));
  }
  return s;
}

}  // namespace distwriter
