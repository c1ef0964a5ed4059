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
  // The next call into *call (its storage reused); false at the end of the file.
  Result<bool> ParseNext(Call* call);
  Call call;  // the single-threaded reader's current call
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

Result<bool> CallFileReader::Rep::ParseNext(Call* out) {
  Rep& r = *this;
  while (r.error.ok()) {
    auto line = r.NextLine();
    if (!line) {
      r.error = line.error();  // the Env's message names the file
      break;
    }
    if (!*line) return false;
    if (IsBlank(**line)) continue;
    Status parsed = r.parser.Parse(**line, out);
    if (parsed.ok()) return true;
    r.error = parsed.WithContext(r.name + ":" + std::to_string(r.line));
  }
  return Err(r.error);
}

// The parse thread: runs Rep::ParseNext() ahead of the caller and hands over batches of
// calls, each with the line and byte position the single-threaded reader would report
// after it, through a queue of at most kDepth batches. The last batch carries the end
// or the error (sticky, as in Rep). Batches the caller is done with go back to the
// thread, which parses into them again: their calls' strings keep their storage, so a
// stream of calls allocates nothing per call.
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

  Result<const Call*> Next() {
    while (pos_ == current_.size) {
      if (current_.last) {
        line_ = current_.end_line;
        consumed_ = current_.end_consumed;
        if (!current_.error.ok()) return Err(current_.error);
        return static_cast<const Call*>(nullptr);
      }
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return !queue_.empty(); });
      free_.push_back(std::move(current_));
      current_ = std::move(queue_.front());
      queue_.pop_front();
      pos_ = 0;
      cv_.notify_all();
    }
    const Parsed& p = current_.calls[pos_++];
    line_ = p.line;
    consumed_ = p.consumed;
    return &p.call;
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
    std::vector<Parsed> calls;  // the first `size` hold this batch's calls
    size_t size = 0;
    bool last = false;  // the stream ends after these calls, with error (or OK)
    Status error;
    uint64_t end_line = 0;
    uint64_t end_consumed = 0;
  };

  void Run() {
    for (bool last = false; !last;) {
      Batch b = TakeFree();
      while (b.size < kBatch) {
        if (b.size == b.calls.size()) b.calls.emplace_back();
        Parsed& p = b.calls[b.size];
        auto more = rep_.ParseNext(&p.call);
        if (!more || !*more) {
          if (!more) b.error = more.error();
          b.last = true;
          b.end_line = rep_.line;
          b.end_consumed = rep_.consumed;
          break;
        }
        p.line = rep_.line;
        p.consumed = rep_.consumed;
        ++b.size;
      }
      last = b.last;
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || queue_.size() < kDepth; });
      if (stop_) return;
      queue_.push_back(std::move(b));
      cv_.notify_all();
    }
  }

  // A batch the caller is done with, emptied, or a new one.
  Batch TakeFree() {
    Batch b;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        b = std::move(free_.back());
        free_.pop_back();
      }
    }
    b.size = 0;
    b.last = false;
    b.error = Status::OK();
    return b;
  }

  Rep& rep_;  // used by the worker only, once it has started
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> queue_;  // guarded by mu_
  std::vector<Batch> free_;  // guarded by mu_
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

Result<const Call*> CallFileReader::Next() {
  if (ahead_) return ahead_->Next();
  NUTCHFS_ASSIGN_OR_RETURN(bool more, rep_->ParseNext(&rep_->call));
  return more ? &rep_->call : nullptr;
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
