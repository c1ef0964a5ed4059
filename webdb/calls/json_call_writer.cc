#include "webdb/calls/json_call_writer.h"

#include <cerrno>

#include "webdb/calls/json_out.h"

namespace webdb {
namespace {

constexpr size_t kDrainAt = size_t{1} << 20;

Call PageCall(Call::Op op, const Page& page) {
  Call call;
  call.op = op;
  call.page = page;
  return call;
}

}  // namespace

JsonCallWriter::Drain JsonCallWriter::ToFile(nutchfs::WritableFile& file) {
  return [&file](std::string_view lines) { return file.Append(lines); };
}

JsonCallWriter::Drain JsonCallWriter::ToStream(std::FILE* out, std::string name) {
  return [out, name = std::move(name)](std::string_view lines) {
    if (std::fwrite(lines.data(), 1, lines.size(), out) != lines.size() || std::fflush(out) != 0) {
      return Status::FromErrno("write calls to " + name, errno);
    }
    return Status::OK();
  };
}

JsonCallWriter::Drain JsonCallWriter::ToString(std::string* text) {
  return [text](std::string_view lines) {
    text->append(lines);
    return Status::OK();
  };
}

Status JsonCallWriter::Write(const Call& call) {
  AppendCallJson(call, &buf_);
  buf_.push_back('\n');
  ++calls_;
  return buf_.size() >= kDrainAt ? Flush() : Status::OK();
}

Status JsonCallWriter::AddPage(const Page& page) {
  return Write(PageCall(Call::Op::kAddPage, page));
}

Status JsonCallWriter::AddPageWithScore(const Page& page) {
  return Write(PageCall(Call::Op::kAddPageWithScore, page));
}

Status JsonCallWriter::AddPageIfNotPresent(const Page& page) {
  return Write(PageCall(Call::Op::kAddPageIfNotPresent, page));
}

Status JsonCallWriter::AddPageIfNotPresent(const Page& page, const Link& link) {
  Call call = PageCall(Call::Op::kAddPageIfNotPresent, page);
  call.link = link;
  return Write(call);
}

Status JsonCallWriter::DeletePage(std::string_view url) {
  Call call;
  call.op = Call::Op::kDeletePage;
  call.url = std::string(url);
  return Write(call);
}

Status JsonCallWriter::AddLink(const Link& link) {
  Call call;
  call.op = Call::Op::kAddLink;
  call.link = link;
  return Write(call);
}

Status JsonCallWriter::Flush() {
  if (buf_.empty()) return Status::OK();
  NUTCHFS_RETURN_IF_ERROR(drain_(buf_));
  bytes_ += buf_.size();
  buf_.clear();
  return Status::OK();
}

Status JsonCallWriter::Poison(std::string_view message) {
  buf_ += "{\"op\":\"error\",\"message\":";
  AppendJsonString(message, &buf_);
  buf_ += "}\n";
  return Flush();
}

}  // namespace webdb
