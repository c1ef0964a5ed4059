#include "webdb/calls/call_file.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "webdb/calls/call_parser.h"

namespace webdb {
namespace {

constexpr size_t kInitialBufferSize = size_t{4} << 20;

// Error s, met logging the call that ends at line, with its place (Placed()).
Status PlaceLogError(const std::string& name, uint64_t line, const Status& s) {
  if (s.IsInvalidArgument()) return s.WithContext(name + ":" + std::to_string(line));
  return s.WithContext("logging the calls of " + name + " (at line " + std::to_string(line) + ")");
}

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

// The parse threads: kWorkers threads take turns reading the next chunk of whole lines
// of the file (under the lock, so chunks follow the file's order and are numbered), and
// parse their chunks at the same time, each into a batch of calls with their line
// numbers and byte positions within the chunk. The caller takes the batches in chunk
// order, at most kDepth chunks behind the reading, and adds up the lines and bytes of
// the chunks before: each call gets the line and position the single-threaded reader
// would report after it. The batch that ends the file, or holds its first error, is the
// last one taken (chunks read after it are dropped); its error is sticky, as in Rep.
// Batches the caller is done with go back to the threads, which read and parse into
// them again: their text and their calls' strings keep their storage, so a stream of
// calls allocates nothing per call.
//
// With lanes (LogCalls), no batch goes to the caller: thread i logs the calls of each
// chunk it parsed through lane i, once the chunks before have been parsed and counted
// (so that it knows the number of the chunk's first call, and its first line and byte).
// The caller waits for the threads, and the error of the earliest chunk that has one is
// the reader's.
class CallFileReader::Ahead {
 public:
  // Reads ahead for Next(); with lanes, logs the calls itself, numbered from first_call.
  Ahead(Rep& rep, CallLanes* lanes = nullptr, uint64_t first_call = 0)
      : rep_(rep), lanes_(lanes), next_call_(first_call) {
    for (size_t i = 0; i < kWorkers; ++i) workers_.emplace_back([this, i] { Work(i); });
  }
  ~Ahead() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  Ahead(const Ahead&) = delete;
  Ahead& operator=(const Ahead&) = delete;

  Result<const Call*> Next() {
    while (pos_ == current_.size) {
      if (current_.last) return End();
      base_line_ += current_.lines;
      base_consumed_ += current_.text_size;
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return ready_.count(taken_) > 0; });
      free_.push_back(std::move(current_));
      auto next = ready_.find(taken_);
      current_ = std::move(next->second);
      ready_.erase(next);
      ++taken_;
      pos_ = 0;
      cv_.notify_all();
    }
    const Parsed& p = current_.calls[pos_++];
    line_ = base_line_ + p.line;
    consumed_ = base_consumed_ + p.consumed;
    return &p.call;
  }

  uint64_t line() const { return line_; }
  uint64_t consumed() const { return consumed_; }

  // With lanes: waits until the threads have logged every call, reporting progress now
  // and then; the calls logged, or the first error in the file.
  Result<uint64_t> Logged(uint64_t first_call, const LogProgressFn& progress) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(250),
                         [this] { return finished_ == kWorkers; })) {
      if (!progress) continue;
      const uint64_t calls = logged_, bytes = consumed_;
      lock.unlock();
      progress(calls, bytes);
      lock.lock();
    }
    if (!log_error_.ok()) return Err(log_error_);
    line_ = lines_;
    return next_call_ - first_call;
  }

  static constexpr size_t kWorkers = 2;  // the parse threads, and the lanes LogCalls uses

 private:
  static constexpr size_t kChunk = 256 << 10;  // bytes read at once
  static constexpr uint64_t kDepth = 4;        // chunks read ahead of the caller

  struct Parsed {
    Call call;
    uint64_t line;      // within the chunk, from 1
    uint64_t consumed;  // bytes of the chunk up to the end of the call's line
  };
  struct Batch {
    uint64_t chunk = 0;  // its number in the file
    std::unique_ptr<char[]> text;  // whole lines, then CallParser::kPadding bytes
    size_t text_size = 0;
    size_t text_capacity = 0;
    uint64_t lines = 0;  // lines of the text, blank ones included
    std::vector<Parsed> calls;  // the first `size` hold the chunk's calls
    size_t size = 0;
    bool last = false;   // the stream ends after these calls: at the file's end or...
    Status error;        // ...at this error (a parse error's line lacks the file and line)
    uint64_t error_line = 0;      // for a parse error: its line within the chunk
    uint64_t error_consumed = 0;  // and the bytes of the chunk up to its end
  };

  void Work(size_t worker) {
    CallParser parser;
    for (;;) {
      Batch b;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] {
          return stop_ || read_all_ || lanes_ != nullptr || read_ - taken_ < kDepth;
        });
        if (stop_ || read_all_) break;
        if (!free_.empty()) {
          b = std::move(free_.back());
          free_.pop_back();
        }
        b.chunk = read_++;
        ReadChunk(&b);
      }
      ParseChunk(parser, &b);
      if (lanes_ != nullptr) {
        Log(worker, &b);
        continue;
      }
      std::lock_guard<std::mutex> lock(mu_);
      if (b.last) read_all_ = true;  // a parse error ends the stream
      ready_.emplace(b.chunk, std::move(b));
      cv_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mu_);
    ++finished_;
    cv_.notify_all();
  }

  // Numbers b's calls after those of the chunks before, then logs them through the
  // worker's lane; the first error met (the call's, or the chunk's own) is kept if no
  // earlier chunk has one.
  void Log(size_t worker, Batch* b) {
    uint64_t first_call, first_line;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || numbered_ == b->chunk; });
      if (stop_) return;
      first_call = next_call_;
      first_line = lines_;
      next_call_ += b->size;
      lines_ += b->lines;
      consumed_ += b->text_size;
      ++numbered_;
      if (b->last) read_all_ = true;
      cv_.notify_all();
    }
    CallSink& lane = lanes_->Lane(worker, first_call);
    Status error;
    size_t i = 0;
    for (; i < b->size; ++i) {
      Status s = ApplyCall(lane, b->calls[i].call);
      if (!s.ok()) {
        error = PlaceLogError(rep_.name, first_line + b->calls[i].line, s);
        break;
      }
    }
    if (error.ok() && !b->error.ok()) {
      error = b->error_line == 0 ? b->error
                                 : b->error.WithContext(rep_.name + ":" +
                                                        std::to_string(first_line + b->error_line));
    }
    std::lock_guard<std::mutex> lock(mu_);
    logged_ += i;
    if (!error.ok()) {
      read_all_ = true;
      if (log_error_.ok() || b->chunk < log_error_chunk_) {
        log_error_ = std::move(error);
        log_error_chunk_ = b->chunk;
      }
    }
    free_.push_back(std::move(*b));
  }

  // Room for size bytes of text and the parser's padding, keeping the text held.
  static void Reserve(Batch* b, size_t size) {
    if (size + CallParser::kPadding <= b->text_capacity) return;
    const size_t capacity = std::max(size, 2 * b->text_capacity) + CallParser::kPadding;
    std::unique_ptr<char[]> text(new char[capacity]);
    if (b->text_size > 0) std::memcpy(text.get(), b->text.get(), b->text_size);
    b->text = std::move(text);
    b->text_capacity = capacity;
  }

  // The next chunk into b's text: the partial line the last chunk left, then reads up
  // to and including the last newline read (a line longer than a read takes more reads),
  // or the rest of the file. A read error ends the text at the last whole line; the
  // chunk then ends the stream with it. REQUIRES: mu_ held.
  void ReadChunk(Batch* b) {
    b->size = 0;
    b->lines = 0;
    b->last = false;
    b->error = Status::OK();
    b->text_size = 0;
    Reserve(b, carry_.size() + kChunk);
    std::memcpy(b->text.get(), carry_.data(), carry_.size());
    b->text_size = carry_.size();
    carry_.clear();
    for (size_t searched = 0;;) {
      Reserve(b, b->text_size + kChunk);
      Result<std::string_view> got = rep_.file->Read(kChunk, b->text.get() + b->text_size);
      if (!got || got->empty()) {
        read_all_ = true;
        b->last = true;
        if (!got) {
          b->error = got.error();  // the Env's message names the file
          const void* nl = memrchr(b->text.get(), '\n', b->text_size);
          b->text_size = nl ? static_cast<const char*>(nl) - b->text.get() + 1 : 0;
        }
        break;
      }
      b->text_size += got->size();
      const void* nl = memrchr(b->text.get() + searched, '\n', b->text_size - searched);
      if (nl != nullptr) {
        const size_t whole = static_cast<const char*>(nl) - b->text.get() + 1;
        carry_.assign(b->text.get() + whole, b->text_size - whole);
        b->text_size = whole;
        break;
      }
      searched = b->text_size;
    }
    std::memset(b->text.get() + b->text_size, 0, CallParser::kPadding);
  }

  // Parses the chunk's lines into b's calls, up to the first error.
  static void ParseChunk(CallParser& parser, Batch* b) {
    const char* const text = b->text.get();
    const char* const end = text + b->text_size;
    for (const char* p = text; p < end;) {
      const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
      const char* line_end = nl ? static_cast<const char*>(nl) : end;
      const std::string_view line(p, static_cast<size_t>(line_end - p));
      p = nl ? line_end + 1 : end;
      ++b->lines;
      if (IsBlank(line)) continue;
      if (b->size == b->calls.size()) b->calls.emplace_back();
      Parsed& parsed = b->calls[b->size];
      Status s = parser.Parse(line, &parsed.call);
      if (!s.ok()) {
        b->last = true;
        b->error = std::move(s);
        b->error_line = b->lines;
        b->error_consumed = static_cast<uint64_t>(p - text);
        return;
      }
      parsed.line = b->lines;
      parsed.consumed = static_cast<uint64_t>(p - text);
      ++b->size;
    }
  }

  // The end of the stream, after the last batch's calls: the end of the file or its
  // error, the reader's line and position those of the single-threaded reader.
  Result<const Call*> End() {
    if (current_.error.ok() || current_.error_line == 0) {
      line_ = base_line_ + current_.lines;
      consumed_ = base_consumed_ + current_.text_size;
      if (current_.error.ok()) return static_cast<const Call*>(nullptr);
      return Err(current_.error);
    }
    line_ = base_line_ + current_.error_line;
    consumed_ = base_consumed_ + current_.error_consumed;
    return Err(current_.error.WithContext(rep_.name + ":" + std::to_string(line_)));
  }

  Rep& rep_;  // its file and name: the file read under mu_ only
  CallLanes* const lanes_;  // null: read ahead for Next()
  std::mutex mu_;
  std::condition_variable cv_;
  // With lanes, guarded by mu_: the chunks numbered, the calls, lines and bytes they
  // hold, the calls logged, the threads done, and the error of the earliest chunk.
  uint64_t numbered_ = 0;
  uint64_t next_call_;
  uint64_t lines_ = 0;
  uint64_t logged_ = 0;
  size_t finished_ = 0;
  Status log_error_;
  uint64_t log_error_chunk_ = 0;
  std::string carry_;              // guarded by mu_: a partial line the last chunk left
  uint64_t read_ = 0;              // guarded by mu_: chunks read
  uint64_t taken_ = 0;             // guarded by mu_: batches the caller took
  bool read_all_ = false;          // guarded by mu_: no chunk left to read
  bool stop_ = false;              // guarded by mu_
  std::map<uint64_t, Batch> ready_;  // guarded by mu_: parsed, by chunk
  std::vector<Batch> free_;        // guarded by mu_
  Batch current_;                  // the caller's
  size_t pos_ = 0;
  uint64_t base_line_ = 0;         // lines of the chunks before current_
  uint64_t base_consumed_ = 0;     // and their bytes
  uint64_t line_ = 0;
  uint64_t consumed_ = 0;  // with lanes, guarded by mu_: the bytes of the chunks numbered
  std::vector<std::thread> workers_;  // last: they start once everything above is built
};

Result<std::unique_ptr<CallFileReader>> CallFileReader::Open(nutchfs::Env& env,
                                                             const std::string& path,
                                                             bool parse_thread) {
  auto rep = std::make_unique<Rep>();
  NUTCHFS_ASSIGN_OR_RETURN(rep->file, env.NewSequentialFile(path == "-" ? "/dev/stdin" : path));
  rep->name = path;
  std::unique_ptr<CallFileReader> reader(new CallFileReader(std::move(rep)));
  reader->parse_thread_ = parse_thread;
  return reader;
}

CallFileReader::CallFileReader(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
// ahead_ goes first (member order): its thread uses rep_.
CallFileReader::~CallFileReader() = default;

const std::string& CallFileReader::name() const { return rep_->name; }
uint64_t CallFileReader::line() const { return ahead_ ? ahead_->line() : rep_->line; }

Status CallFileReader::Placed(const Status& s) const {
  return PlaceLogError(name(), line(), s);
}
uint64_t CallFileReader::bytes_consumed() const {
  return ahead_ ? ahead_->consumed() : rep_->consumed;
}

Result<const Call*> CallFileReader::Next() {
  if (parse_thread_ && !ahead_) ahead_ = std::make_unique<Ahead>(*rep_);
  if (ahead_) return ahead_->Next();
  if (!rep_->buf) rep_->Allocate(kInitialBufferSize);
  NUTCHFS_ASSIGN_OR_RETURN(bool more, rep_->ParseNext(&rep_->call));
  return more ? &rep_->call : nullptr;
}

Result<uint64_t> CallFileReader::LogCalls(CallLanes& lanes, const LogProgressFn& progress) {
  const uint64_t first = lanes.next_call();
  if (parse_thread_ && lanes.count() >= Ahead::kWorkers) {
    ahead_ = std::make_unique<Ahead>(*rep_, &lanes, first);
    return ahead_->Logged(first, progress);
  }
  NUTCHFS_RETURN_IF_ERROR(ApplyAll(lanes.Lane(0, first), progress));
  return lanes.next_call() - first;
}

Status CallFileReader::ApplyAll(CallSink& sink, const LogProgressFn& progress) {
  constexpr uint64_t kReportEvery = 4096;
  for (uint64_t calls = 1;; ++calls) {
    NUTCHFS_ASSIGN_OR_RETURN(const Call* call, Next());
    if (!call) return Status::OK();
    Status s = ApplyCall(sink, *call);
    if (!s.ok()) return Placed(s);
    if (progress && calls % kReportEvery == 0) progress(calls, bytes_consumed());
  }
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
