#include "webdb/stages/stage_edits.h"

#include "webdb/util/coding.h"

namespace webdb {

void EncodePageCall(const Page& page, const Link* link, std::string* out) {
  EncodePageByUrlValue(page, out);
  if (link == nullptr) return;
  out->append(Md5Bytes(link->from));
  PutLengthPrefixed(out, link->url);
  EncodeLinkValue(*link, out);
}

Result<PageCall> DecodePageCall(std::string_view url, std::string_view value) {
  constexpr size_t kPageValueSize = 16 + 22;
  if (value.size() < kPageValueSize) return Err(Status::Corruption("short page edit"));
  PageCall call;
  NUTCHFS_ASSIGN_OR_RETURN(call.page, DecodePageByUrl(url, value.substr(0, kPageValueSize)));
  std::string_view rest = value.substr(kPageValueSize);
  if (rest.empty()) return call;
  std::string_view from, link_url;
  if (!GetBytes(&rest, 16, &from) || !GetLengthPrefixed(&rest, &link_url)) {
    return Err(Status::Corruption("malformed link in page edit"));
  }
  NUTCHFS_ASSIGN_OR_RETURN(Link link, DecodeLinkByMd5(std::string(from) + std::string(link_url), rest));
  call.link = std::move(link);
  return call;
}

Result<bool> HasOutlinks(std::string_view value) {
  constexpr size_t kOutlinksOffset = 16 + 8 + 1 + 1;
  if (value.size() < kOutlinksOffset + 4) return Err(Status::Corruption("short page value"));
  return static_cast<int32_t>(DecodeFixed32(value.data() + kOutlinksOffset)) > 0;
}

}  // namespace webdb
