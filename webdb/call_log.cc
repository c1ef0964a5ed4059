#include "webdb/call_log.h"

namespace webdb {

Result<uint64_t> CallLog::NextOrder() {
  if (calls_ >= kMaxCallsPerWriter) {
    return Err(Status::InvalidArgument("too many calls in one session"));
  }
  return CallOrder(writer_, calls_++);
}

Status CallLog::LogPage(PageOp op, const Page& page, const Link* link) {
  NUTCHFS_RETURN_IF_ERROR(ValidatePage(page));
  if (link != nullptr) NUTCHFS_RETURN_IF_ERROR(ValidateLink(*link));
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t order, NextOrder());
  value_.clear();
  EncodePageCall(page, link, &value_);
  return page_edits_.Add(EditView{page.url, order, op, value_});
}

Status CallLog::DeletePage(std::string_view url) {
  NUTCHFS_RETURN_IF_ERROR(ValidateUrl(url));
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t order, NextOrder());
  return page_edits_.Add(EditView{url, order, kDeletePage, {}});
}

Status CallLog::AddLink(const Link& link) {
  NUTCHFS_RETURN_IF_ERROR(ValidateLink(link));
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t order, NextOrder());
  value_.clear();
  EncodeLinkValue(link, &value_);
  SetLinkMd5Key(link.from, link.url, &key_);
  return link_edits_.Add(EditView{key_, order, kPut, value_});
}

}  // namespace webdb
