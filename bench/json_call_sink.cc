#include "bench/json_call_sink.h"

#include "webdb/calls/json_out.h"

namespace bench {

using webdb::Call;

Status JsonCallSink::Emit(const Call& call) {
  webdb::AppendCallJson(call, &text_);
  text_.push_back('\n');
  return out_ != nullptr && buf_.size() >= (size_t{1} << 20) ? Drain() : Status::OK();
}

Status JsonCallSink::Drain() {
  if (out_ == nullptr) return Status::OK();
  if (std::fwrite(buf_.data(), 1, buf_.size(), out_) != buf_.size()) {
    return Status::IOError(name_ + ": write failed after " + std::to_string(bytes_) + " bytes");
  }
  bytes_ += buf_.size();
  buf_.clear();
  return Status::OK();
}

Status JsonCallSink::Finish() {
  NUTCHFS_RETURN_IF_ERROR(Drain());
  if (out_ != nullptr && std::fflush(out_) != 0) return Status::IOError(name_ + ": flush failed");
  return Status::OK();
}

Status JsonCallSink::EmitPage(Call::Op op, const webdb::Page& page, const webdb::Link* link) {
  Call call;
  call.op = op;
  call.page = page;
  if (link != nullptr) call.link = *link;
  return Emit(call);
}

Status JsonCallSink::AddPage(const webdb::Page& page) {
  return EmitPage(Call::Op::kAddPage, page, nullptr);
}

Status JsonCallSink::AddPageWithScore(const webdb::Page& page) {
  return EmitPage(Call::Op::kAddPageWithScore, page, nullptr);
}

Status JsonCallSink::AddPageIfNotPresent(const webdb::Page& page) {
  return EmitPage(Call::Op::kAddPageIfNotPresent, page, nullptr);
}

Status JsonCallSink::AddPageIfNotPresent(const webdb::Page& page, const webdb::Link& link) {
  return EmitPage(Call::Op::kAddPageIfNotPresent, page, &link);
}

Status JsonCallSink::DeletePage(std::string_view url) {
  Call call;
  call.op = Call::Op::kDeletePage;
  call.url = url;
  return Emit(call);
}

Status JsonCallSink::AddLink(const webdb::Link& link) {
  Call call;
  call.op = Call::Op::kAddLink;
  call.link = link;
  return Emit(call);
}

}  // namespace bench
