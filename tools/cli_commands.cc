#include "tools/cli_commands.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "distwriter/dist_reader.h"
#include "distwriter/round_versions.h"
#include "nutchfs/lock_file.h"
#include "tools/crawl_commands.h"
#include "tools/explain_command.h"
#include "tools/ops_commands.h"
#include "tools/progress_reporter.h"
#include "tools/rank_command.h"
#include "tools/step_clock.h"
#include "tools/step_observer.h"
#include "tools/version_commands.h"
#include "webdb/calls/call_file.h"
#include "webdb/calls/json_out.h"
#include "webdb/db/writer.h"

namespace tools {
namespace {

using webdb::AppendLinkJson;
using webdb::AppendPageJson;
using webdb::Call;
using webdb::CallFileReader;
using webdb::Link;
using webdb::LinkCursor;
using webdb::Page;
using webdb::PageCursor;
using webdb::Reader;
using webdb::Writer;
using webdb::WriterOptions;

// Collects output and hands it to the stream in large writes.
class Output {
 public:
  explicit Output(std::FILE* file) : file_(file) {}

  std::FILE* file() const { return file_; }

  std::string* buf() { return &buf_; }

  Status MaybeFlush() { return buf_.size() >= kFlushAt ? Flush() : Status::OK(); }

  Status Flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
      return Status::FromErrno("write to standard output", errno);
    }
    buf_.clear();
    if (std::fflush(file_) != 0) return Status::FromErrno("write to standard output", errno);
    return Status::OK();
  }

 private:
  static constexpr size_t kFlushAt = size_t{1} << 20;
  std::FILE* const file_;
  std::string buf_;
};

Status WritePages(PageCursor cursor, Output& out, webdb::RowProgress& progress) {
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<Page> page, cursor.Next());
    if (!page) return out.Flush();
    progress.Row();
    AppendPageJson(*page, out.buf());
    out.buf()->push_back('\n');
    NUTCHFS_RETURN_IF_ERROR(out.MaybeFlush());
  }
}

Status WriteLinks(LinkCursor cursor, Output& out, webdb::RowProgress& progress) {
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::optional<Link> link, cursor.Next());
    if (!link) return out.Flush();
    progress.Row();
    AppendLinkJson(*link, out.buf());
    out.buf()->push_back('\n');
    NUTCHFS_RETURN_IF_ERROR(out.MaybeFlush());
  }
}

template <typename Record, typename AppendFn>
Status WriteAll(const std::vector<Record>& records, AppendFn append, Output& out) {
  for (const Record& r : records) {
    append(r, out.buf());
    out.buf()->push_back('\n');
  }
  return out.Flush();
}

// Where apply stands, for progress reports while the call files are read.
struct ReadProgress {
  ProgressReporter* reporter = nullptr;  // null: --quiet
  uint64_t total_bytes = 0;              // 0: unknown (standard input)
  uint64_t bytes_before = 0;             // in the files already read
  uint64_t calls = 0;
};

// Logs every call of reader into writer, through the writer's lanes. Errors name
// FILE:LINE.
Status LogCalls(CallFileReader& reader, Writer& writer, ReadProgress& progress) {
  CallFileReader::LogProgressFn report;
  if (progress.reporter != nullptr) {
    report = [&progress](uint64_t calls, uint64_t bytes) {
      double done = static_cast<double>(progress.bytes_before + bytes);
      double fraction = progress.total_bytes > 0 ? done / progress.total_bytes : -1;
      progress.reporter->Report("reading calls", progress.calls + calls, fraction);
    };
  }
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t calls, reader.LogCalls(writer.lanes(), report));
  progress.calls += calls;
  return Status::OK();
}

// The total size of the call files; 0 if one of them is standard input.
Result<uint64_t> TotalSize(nutchfs::Env& env, const std::vector<std::string>& files) {
  uint64_t total = 0;
  for (const std::string& f : files) {
    if (f == "-") return 0;
    NUTCHFS_ASSIGN_OR_RETURN(uint64_t size, env.GetFileSize(f));
    total += size;
  }
  return total;
}

// One session: every call is logged, and only if all of them parse and log does
// Close() apply them. On any error the Writer is destroyed unclosed, which publishes
// nothing: the db stays exactly as it was.
Result<int> RunApply(nutchfs::Env& env, const Invocation& inv, Output&) {
  auto start = std::chrono::steady_clock::now();
  StepClock steps("calls");
  ProgressReporter reporter(stderr);
  WriterOptions options;
  options.memory_budget = inv.memory_budget;
  options.hooks.before_step = [&steps, observe = StepObserver()](std::string_view step) {
    steps.Step(step);
    if (observe) observe(step);
  };
  if (!inv.quiet) options.progress = reporter.AsProgressFn();
  ReadProgress progress;
  if (!inv.quiet) progress.reporter = &reporter;
  NUTCHFS_ASSIGN_OR_RETURN(progress.total_bytes, TotalSize(env, inv.call_files));
  auto opened = Writer::Open(env, inv.db, options);
  if (!opened) return Err(WithUnlockHint(env, opened.error(), inv.db));
  std::unique_ptr<Writer> writer = std::move(*opened);
  if (inv.keep) writer->set_keep(*inv.keep);
  for (const std::string& path : inv.call_files) {
    NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<CallFileReader> reader,
                             CallFileReader::Open(env, path));
    NUTCHFS_RETURN_IF_ERROR(LogCalls(*reader, *writer, progress));
    progress.bytes_before += reader->bytes_consumed();
  }
  NUTCHFS_RETURN_IF_ERROR(writer->Close());
  if (!inv.quiet) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string summary =
        fmt::format("webdb: applied {} calls in {:.1f} s\nwebdb: seconds by step: {}\n",
                    progress.calls, seconds, steps.Summary());
    std::fputs(summary.c_str(), stderr);
  }
  return kExitOk;
}

// Breaks the db's LOCK unless a live process on this host holds it (docs/CLI.md).
Result<int> RunUnlock(nutchfs::Env& env, const Invocation& inv, Output&) {
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  auto reason = nutchfs::BreakLockFile(env, inv.db + "/LOCK", nutchfs::CurrentProcess(""),
                                       now_ms, /*lease_ms=*/0, /*force=*/true);
  if (!reason && reason.error().IsNotFound()) {
    std::fputs(("webdb: " + inv.db + " is not locked\n").c_str(), stderr);
    return kExitNotFound;
  }
  if (!reason) return Err(reason.error());
  std::fputs(("webdb: removed the lock of " + inv.db + ": " + *reason + "\n").c_str(), stderr);
  return kExitOk;
}

Result<int> RunCreate(nutchfs::Env& env, const Invocation& inv, Output&) {
  NUTCHFS_RETURN_IF_ERROR(Writer::Create(env, inv.db, inv.keep.value_or(webdb::kDefaultKeep)));
  return kExitOk;
}

Result<int> RunDump(nutchfs::Env& env, const Invocation& inv, Output& out) {
  NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<Reader> reader, OpenReader(env, inv));
  ProgressReporter reporter(stderr);
  webdb::ProgressFn report;
  if (!inv.quiet) report = reporter.AsProgressFn();
  webdb::RowProgress progress(report, std::string("dump ") + webdb::TableName(inv.table),
                              reader->Size(inv.table).records);
  Status s;
  switch (inv.table) {
    case TableId::kPagesByUrl: s = WritePages(reader->Pages(), out, progress); break;
    case TableId::kPagesByMd5: s = WritePages(reader->PagesByMd5(), out, progress); break;
    case TableId::kLinksByUrl: s = WriteLinks(reader->Links(), out, progress); break;
    case TableId::kLinksByMd5: s = WriteLinks(reader->LinksByMd5(), out, progress); break;
  }
  NUTCHFS_RETURN_IF_ERROR(s);
  return kExitOk;
}

// The operator commands write to the stream themselves (tools/ops_commands.h).
template <Result<int> (*Run)(nutchfs::Env&, const Invocation&, std::FILE*)>
Result<int> RunDirect(nutchfs::Env& env, const Invocation& inv, Output& out) {
  NUTCHFS_RETURN_IF_ERROR(out.Flush());
  return Run(env, inv, out.file());
}

Result<int> RunPage(nutchfs::Env& env, const Invocation& inv, Output& out) {
  NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<Reader> reader, OpenReader(env, inv));
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<Page> page, reader->GetPage(*inv.url));
  if (!page) {
    std::fputs(("webdb: no page at " + *inv.url + "\n").c_str(), stderr);
    return kExitNotFound;
  }
  AppendPageJson(*page, out.buf());
  out.buf()->push_back('\n');
  NUTCHFS_RETURN_IF_ERROR(out.Flush());
  return kExitOk;
}

Result<int> RunPages(nutchfs::Env& env, const Invocation& inv, Output& out) {
  NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<Reader> reader, OpenReader(env, inv));
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<Page> pages, reader->GetPages(*inv.md5));
  NUTCHFS_RETURN_IF_ERROR(WriteAll(pages, AppendPageJson, out));
  return kExitOk;
}

Result<int> RunLinks(nutchfs::Env& env, const Invocation& inv, Output& out) {
  NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<Reader> reader, OpenReader(env, inv));
  std::vector<Link> links;
  if (inv.url) {
    NUTCHFS_ASSIGN_OR_RETURN(links, reader->GetLinks(std::string_view(*inv.url)));
  } else {
    NUTCHFS_ASSIGN_OR_RETURN(links, reader->GetLinks(*inv.md5));
  }
  NUTCHFS_RETURN_IF_ERROR(WriteAll(links, AppendLinkJson, out));
  return kExitOk;
}

using CommandFn = Result<int> (*)(nutchfs::Env&, const Invocation&, Output&);

constexpr std::pair<const char*, CommandFn> kRunners[] = {
    {"create", RunCreate}, {"apply", RunApply}, {"dump", RunDump},   {"stats", RunDirect<RunStats>},
    {"page", RunPage},     {"pages", RunPages}, {"links", RunLinks},   {"unlock", RunUnlock},
    {"verify", RunDirect<RunVerify>}, {"explain", RunDirect<RunExplain>},
    {"versions", RunDirect<RunVersions>}, {"rollback", RunDirect<RunRollback>},
    {"keep", RunDirect<RunKeep>}, {"rank", RunDirect<RunRank>},
    {"drop-version", RunDirect<RunDropVersion>},
    {"compact", RunDirect<RunCompact>},
};

// The crawl commands write to the stream themselves.
using CrawlFn = Result<int> (*)(nutchfs::Env&, const Invocation&, std::FILE*);
constexpr std::pair<const char*, CrawlFn> kCrawlRunners[] = {
    {"inject", RunInject}, {"update", RunUpdate}, {"generate", RunGenerate}, {"calls", RunCalls},
};

}  // namespace

Result<std::unique_ptr<webdb::Reader>> OpenReader(nutchfs::Env& env, const Invocation& inv) {
  return OpenReaderAt(env, inv, inv.version);
}

Result<std::unique_ptr<webdb::Reader>> OpenReaderAt(nutchfs::Env& env, const Invocation& inv,
                                                    std::optional<uint64_t> version) {
  if (!inv.config.empty()) return distwriter::OpenDistReader(inv.config, version);
  return webdb::Reader::Open(env, inv.db, version);
}

Result<webdb::VersionList> ListKeptVersions(nutchfs::Env& env, const Invocation& inv) {
  if (inv.config.empty()) return webdb::ListVersions(env, inv.db);
  NUTCHFS_ASSIGN_OR_RETURN(distwriter::DistConfig config, distwriter::DistConfig::Load(inv.config));
  return distwriter::ListRounds(config);
}

Status WriteToStream(std::FILE* out, std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() || std::fflush(out) != 0) {
    return Status::FromErrno("write to standard output", errno);
  }
  return Status::OK();
}

Status WithUnlockHint(nutchfs::Env& env, const Status& s, const std::string& db) {
  // `webdb unlock` refuses a live process of this host: its message says what holds the
  // lock, and pointing to a command that would refuse helps no one.
  if (!s.IsBusy() || !nutchfs::BreakableByForce(env, db + "/LOCK")) return s;
  return Status::Busy(s.message() + " (if no writer runs on " + db + " any more, `webdb unlock " +
                      db + "` removes the lock)");
}

Result<int> RunCommand(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  for (auto [name, run] : kCrawlRunners) {
    if (inv.command == name) return run(env, inv, out);
  }
  Output output(out);
  for (auto [name, run] : kRunners) {
    if (inv.command == name) return run(env, inv, output);
  }
  return Err(Status::InvalidArgument("unknown command '" + inv.command + "'"));
}

int ExitCodeFor(const Status& status) {
  if (status.ok()) return kExitOk;
  return status.IsInvalidArgument() ? kExitBadInput : kExitFailure;
}

}  // namespace tools
