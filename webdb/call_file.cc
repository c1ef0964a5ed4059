#include "webdb/call_file.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

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
  Result<std::optional<Call>> ParseNext();
};

void CallFileReader::Rep::Allocate(size_t new_capacity) {
  // Not zero-filled: a short file touches only the pages it is read into.
  auto fresh = std::make_unique_for_overwrite<char[]>(new_capacity + CallParser::kPadding);
  std::memset(fresh.get() + new_capacity, 0, CallParser::kPadding);
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

Result<std::optional<Call>> CallFileReader::Rep::ParseNext() {
  Rep& r = *this;
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

// The parse thread: runs Rep::ParseNext() ahead of the caller and hands over batches of
// calls, each with the line and byte position the single-threaded reader would report
// after it, through a queue of at most kDepth batches. The last batch carries the end
// or the error (sticky, as in Rep).
class CallFileReader::Ahead {
 public:
  explicit Ahead(Rep& rep) : rep_(rep), worker_([this] { Run(); }) {}
  ~Ahead() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  Ahead(const Ahead&) = delete;
  Ahead& operator=(const Ahead&) = delete;

  Result<std::optional<Call>> Next() {
    while (pos_ == current_.calls.size()) {
      if (current_.last) {
        line_ = current_.end_line;
        consumed_ = current_.end_consumed;
        if (!current_.error.ok()) return Err(current_.error);
        return std::optional<Call>();
      }
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return !queue_.empty(); });
      current_ = std::move(queue_.front());
      queue_.pop_front();
      pos_ = 0;
      cv_.notify_all();
    }
    Parsed& p = current_.calls[pos_++];
    line_ = p.line;
    consumed_ = p.consumed;
    return std::optional<Call>(std::move(p.call));
  }

  uint64_t line() const { return line_; }
  uint64_t consumed() const { return consumed_; }

 private:
  static constexpr size_t kBatch = 1024;
  static constexpr size_t kDepth = 4;

  struct Parsed {
    Call call;
    uint64_t line;
    uint64_t consumed;
  };
  struct Batch {
    std::vector<Parsed> calls;
    bool last = false;  // the stream ends after these calls, with error (or OK)
    Status error;
    uint64_t end_line = 0;
    uint64_t end_consumed = 0;
  };

  void Run() {
    for (bool last = false; !last;) {
      Batch b;
      b.calls.reserve(kBatch);
      while (b.calls.size() < kBatch) {
        auto call = rep_.ParseNext();
        if (!call || !*call) {
          if (!call) b.error = call.error();
          b.last = true;
          b.end_line = rep_.line;
          b.end_consumed = rep_.consumed;
          break;
        }
        b.calls.push_back(Parsed{std::move(**call), rep_.line, rep_.consumed});
      }
      last = b.last;
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || queue_.size() < kDepth; });
      if (stop_) return;
      queue_.push_back(std::move(b));
      cv_.notify_all();
    }
  }

  Rep& rep_;  // used by the worker only, once it has started
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> queue_;  // guarded by mu_
  bool stop_ = false;        // guarded by mu_
  Batch current_;            // the caller's
  size_t pos_ = 0;
  uint64_t line_ = 0;
  uint64_t consumed_ = 0;
  std::thread worker_;  // last: starts once everything above is built
};

Result<std::unique_ptr<CallFileReader>> CallFileReader::Open(nutchfs::Env& env,
                                                             const std::string& path,
                                                             bool parse_thread) {
  auto rep = std::make_unique<Rep>();
  NUTCHFS_ASSIGN_OR_RETURN(rep->file, env.NewSequentialFile(path == "-" ? "/dev/stdin" : path));
  rep->name = path;
  rep->Allocate(kInitialBufferSize);
  std::unique_ptr<CallFileReader> reader(new CallFileReader(std::move(rep)));
  if (parse_thread) reader->ahead_ = std::make_unique<Ahead>(*reader->rep_);
  return reader;
}

CallFileReader::CallFileReader(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
// ahead_ goes first (member order): its thread uses rep_.
CallFileReader::~CallFileReader() = default;

const std::string& CallFileReader::name() const { return rep_->name; }
uint64_t CallFileReader::line() const { return ahead_ ? ahead_->line() : rep_->line; }

Status CallFileReader::Placed(const Status& s) const {
  if (s.IsInvalidArgument()) return s.WithContext(name() + ":" + std::to_string(line()));
  return s.WithContext("logging the calls of " + name() + " (at line " + std::to_string(line()) +
                       ")");
}
uint64_t CallFileReader::bytes_consumed() const {
  return ahead_ ? ahead_->consumed() : rep_->consumed;
}

Result<std::optional<Call>> CallFileReader::Next() {
  return ahead_ ? ahead_->Next() : rep_->ParseNext();
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
