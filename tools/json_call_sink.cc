#include "tools/json_call_sink.h"

#include <cerrno>

#include "webdb/calls/json_out.h"

namespace tools {

using webdb::Call;
using webdb::Status;

namespace {
constexpr size_t kFlushAt = size_t{1} << 20;

Call PageCall(Call::Op op, const webdb::Page& page) {
  Call call;
  call.op = op;
  call.page = page;
  return call;
}
}  // namespace

Status JsonCallSink::Write(const Call& call) {
  webdb::AppendCallJson(call, &buf_);
  buf_.push_back('\n');
  ++calls_;
  return buf_.size() >= kFlushAt ? Flush() : Status::OK();
}

Status JsonCallSink::AddPage(const webdb::Page& page) {
  return Write(PageCall(Call::Op::kAddPage, page));
}

Status JsonCallSink::AddPageWithScore(const webdb::Page& page) {
  return Write(PageCall(Call::Op::kAddPageWithScore, page));
}

Status JsonCallSink::AddPageIfNotPresent(const webdb::Page& page) {
  return Write(PageCall(Call::Op::kAddPageIfNotPresent, page));
}

Status JsonCallSink::AddPageIfNotPresent(const webdb::Page& page, const webdb::Link& link) {
  Call call = PageCall(Call::Op::kAddPageIfNotPresent, page);
  call.link = link;
  return Write(call);
}

Status JsonCallSink::DeletePage(std::string_view url) {
  Call call;
  call.op = Call::Op::kDeletePage;
  call.url = std::string(url);
  return Write(call);
}

Status JsonCallSink::AddLink(const webdb::Link& link) {
  Call call;
  call.op = Call::Op::kAddLink;
  call.link = link;
  return Write(call);
}

Status JsonCallSink::Flush() {
  if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), out_) != buf_.size()) {
    return Status::FromErrno("write calls", errno);
  }
  buf_.clear();
  if (std::fflush(out_) != 0) return Status::FromErrno("write calls", errno);
  return Status::OK();
}

Status JsonCallSink::Poison(std::string_view message) {
  buf_ += "{\"op\":\"error\",\"message\":";
  webdb::AppendJsonString(message, &buf_);
  buf_ += "}\n";
  return Flush();
}

}  // namespace tools
