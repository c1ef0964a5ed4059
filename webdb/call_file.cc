#include "webdb/call_file.h"

#include <cstring>
#include <utility>

#include "webdb/call_parser.h"

namespace webdb {
namespace {

constexpr size_t kInitialBufferSize = size_t{4} << 20;

bool IsBlank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

}  // namespace

const char* CallOpName(Call::Op op) {
  switch (op) {
    case Call::Op::kAddPage: return "addPage";
    case Call::Op::kAddPageWithScore: return "addPageWithScore";
    case Call::Op::kAddPageIfNotPresent: return "addPageIfNotPresent";
    case Call::Op::kDeletePage: return "deletePage";
    case Call::Op::kAddLink: return "addLink";
  }
  return "?";
}

// The file is read in large chunks into buf; the bytes not yet consumed are
// [begin, end). buf always has CallParser::kPadding zeroed bytes beyond its capacity,
// so every line inside it can be handed to the parser in place.
struct CallFileReader::Rep {
  std::unique_ptr<nutchfs::SequentialFile> file;
  std::string name;
  CallParser parser;
  std::unique_ptr<char[]> buf;
  size_t capacity = 0;
  size_t begin = 0;
  size_t end = 0;
  bool eof = false;
  uint64_t line = 0;
  uint64_t consumed = 0;
  Status error;  // sticky: once set, Next() keeps returning it

  void Allocate(size_t new_capacity);
  Status Fill();
  Result<std::optional<std::string_view>> NextLine();
};

void CallFileReader::Rep::Allocate(size_t new_capacity) {
  auto fresh = std::make_unique<char[]>(new_capacity + CallParser::kPadding);
  if (buf) std::memcpy(fresh.get(), buf.get() + begin, end - begin);
  end -= begin;
  begin = 0;
  buf = std::move(fresh);
  capacity = new_capacity;
}

// Moves the unconsumed bytes to the front (growing buf if they fill it) and reads more.
Status CallFileReader::Rep::Fill() {
  if (begin == 0 && end == capacity) {
    Allocate(capacity * 2);
  } else if (begin > 0) {
    std::memmove(buf.get(), buf.get() + begin, end - begin);
    end -= begin;
    begin = 0;
  }
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, file->Read(capacity - end, buf.get() + end));
  end += got.size();
  if (got.empty()) eof = true;
  return Status::OK();
}

Result<std::optional<std::string_view>> CallFileReader::Rep::NextLine() {
  for (;;) {
    const char* start = buf.get() + begin;
    const void* nl = std::memchr(start, '\n', end - begin);
    if (nl != nullptr || (eof && begin < end)) {
      size_t len = nl ? static_cast<const char*>(nl) - start : end - begin;
      size_t step = nl ? len + 1 : len;
      begin += step;
      consumed += step;
      ++line;
      return std::optional<std::string_view>(std::string_view(start, len));
    }
    if (eof) return std::optional<std::string_view>();
    NUTCHFS_RETURN_IF_ERROR(Fill());
  }
}

Result<std::unique_ptr<CallFileReader>> CallFileReader::Open(nutchfs::Env& env,
                                                             const std::string& path) {
  auto rep = std::make_unique<Rep>();
  NUTCHFS_ASSIGN_OR_RETURN(rep->file, env.NewSequentialFile(path == "-" ? "/dev/stdin" : path));
  rep->name = path;
  rep->Allocate(kInitialBufferSize);
  return std::unique_ptr<CallFileReader>(new CallFileReader(std::move(rep)));
}

CallFileReader::CallFileReader(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
CallFileReader::~CallFileReader() = default;

const std::string& CallFileReader::name() const { return rep_->name; }
uint64_t CallFileReader::line() const { return rep_->line; }

Status CallFileReader::Placed(const Status& s) const {
  if (s.IsInvalidArgument()) return s.WithContext(name() + ":" + std::to_string(line()));
  return s.WithContext("logging the calls of " + name() + " (at line " + std::to_string(line()) +
                       ")");
}
uint64_t CallFileReader::bytes_consumed() const { return rep_->consumed; }

Result<std::optional<Call>> CallFileReader::Next() {
  Rep& r = *rep_;
  while (r.error.ok()) {
    auto line = r.NextLine();
    if (!line) {
      r.error = line.error();  // the Env's message names the file
      break;
    }
    if (!*line) return std::optional<Call>();
    if (IsBlank(**line)) continue;
    auto call = r.parser.Parse(**line);
    if (call) return std::optional<Call>(std::move(*call));
    r.error = call.error().WithContext(r.name + ":" + std::to_string(r.line));
  }
  return Err(r.error);
}

Status ApplyCall(CallSink& writer, const Call& call) {
  switch (call.op) {
    case Call::Op::kAddPage: return writer.AddPage(call.page);
    case Call::Op::kAddPageWithScore: return writer.AddPageWithScore(call.page);
    case Call::Op::kAddPageIfNotPresent:
      return call.link ? writer.AddPageIfNotPresent(call.page, *call.link)
                       : writer.AddPageIfNotPresent(call.page);
    case Call::Op::kDeletePage: return writer.DeletePage(call.url);
    case Call::Op::kAddLink: return writer.AddLink(*call.link);
  }
  return Status::InvalidArgument("unknown call op");
}

}  // namespace webdb
