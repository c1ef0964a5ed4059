#include "webdb/calls/call_log.h"

#include <algorithm>

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

CallLogLanes::CallLogLanes(const std::vector<Sinks>& lanes, uint64_t writer) {
  for (const Sinks& lane : lanes) {
    logs_.push_back(std::make_unique<CallLog>(*lane.pages, *lane.links, writer));
  }
}

CallSink& CallLogLanes::Lane(size_t i, uint64_t n) {
  logs_[i]->set_next_call(n);
  return *logs_[i];
}

uint64_t CallLogLanes::next_call() const {
  uint64_t next = 0;
  for (const auto& log : logs_) next = std::max(next, log->num_calls());
  return next;
}

}  // namespace webdb
