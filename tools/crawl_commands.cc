#include "tools/crawl_commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <filesystem>
#include <memory>
#include <optional>

#include "crawl/generator.h"
#include "crawl/injector.h"
#include "crawl/url_filter.h"
#include "crawl/warc_converter.h"
#include "distwriter/call_stream.h"
#include "distwriter/dist_config.h"
#include "distwriter/launch.h"
#include "nutchfs/clock.h"
#include "tools/cli_commands.h"
#include "tools/progress_reporter.h"
#include "tools/scratch_dir.h"
#include "webdb/calls/call_file.h"
#include "webdb/calls/json_call_writer.h"
#include "webdb/calls/json_out.h"
#include "webdb/db/writer.h"

namespace tools {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// A converter's complaint about its input (a corrupt WARC record) is bad input: exit 3.
Status AsBadInput(Status s) {
  return s.IsCorruption() ? Status::InvalidArgument(s.message()) : s;
}

// Applies the calls of the call file at path, or of calls, with the k writers of
// inv.config in one round, as `distwriter launch` does; their reports go to stderr
// unless --quiet.
Status LaunchCalls(const Invocation& inv, const std::string& path,
                   distwriter::CallStream* calls) {
  NUTCHFS_ASSIGN_OR_RETURN(auto config, distwriter::DistConfig::Load(inv.config));
  distwriter::LaunchOptions launch;
  launch.config_path = std::filesystem::absolute(inv.config).string();
  if (calls == nullptr) launch.call_files = {path};
  launch.calls = calls;
  launch.distwriter_binary = kDistwriterCommand;
  launch.run_flags = {"--memory", std::to_string(inv.memory_budget), "--quiet"};
  ProgressReporter reporter(stderr);
  if (!inv.quiet) launch.progress = reporter.AsProgressFn();
  return distwriter::Launch(config, launch, inv.quiet ? nullptr : stderr);
}

// One writer session: the single-machine Writer, or (with --config) calls streamed into
// the spill files the k writers' slices are cut from (distwriter::CallStream) and
// applied by them as `distwriter launch` does. Destroyed without Commit() it applies
// nothing.
class CrawlSession {
 public:
  static Result<std::unique_ptr<CrawlSession>> Open(nutchfs::Env& env, const Invocation& inv) {
    std::unique_ptr<CrawlSession> s(new CrawlSession(inv));
    if (inv.config.empty()) {
      webdb::WriterOptions options;
      options.memory_budget = inv.memory_budget;
      if (!inv.quiet) options.progress = s->reporter_.AsProgressFn();
      auto writer = webdb::Writer::Open(env, inv.db, options);
      if (!writer) return Err(WithUnlockHint(env, writer.error(), inv.db));
      s->writer_ = std::move(*writer);
      return s;
    }
    NUTCHFS_ASSIGN_OR_RETURN(s->scratch_, ScratchDir::Create(env, "crawl"));
    s->calls_ = std::make_unique<distwriter::CallStream>(env, s->scratch_->File("calls"));
    return s;
  }
  // Applies the calls of the call file at path as one session (a distributed db's
  // writers read the file itself).
  static Status ApplyCallFile(nutchfs::Env& env, const Invocation& inv, const std::string& path) {
    if (!inv.config.empty()) return LaunchCalls(inv, path, nullptr);
    NUTCHFS_ASSIGN_OR_RETURN(auto session, Open(env, inv));
    NUTCHFS_ASSIGN_OR_RETURN(auto reader, webdb::CallFileReader::Open(env, path, false));
    NUTCHFS_RETURN_IF_ERROR(reader->ApplyAll(session->sink()));
    return session->Commit();
  }
  CrawlSession(const CrawlSession&) = delete;
  CrawlSession& operator=(const CrawlSession&) = delete;

  webdb::CallSink& sink() {
    return writer_ ? static_cast<webdb::CallSink&>(*writer_) : calls_->sink();
  }

  Status Commit() {
    if (writer_) return writer_->Close();
    NUTCHFS_RETURN_IF_ERROR(calls_->Finish());
    return LaunchCalls(inv_, "", calls_.get());
  }

 private:
  explicit CrawlSession(const Invocation& inv) : inv_(inv), reporter_(stderr) {}
  const Invocation& inv_;
  ProgressReporter reporter_;
  std::unique_ptr<webdb::Writer> writer_;
  std::unique_ptr<ScratchDir> scratch_;
  std::unique_ptr<distwriter::CallStream> calls_;  // after scratch_: its files are in it
};

Result<std::optional<crawl::UrlFilter>> LoadFilter(nutchfs::Env& env, const Invocation& inv) {
  if (inv.crawl.filter.empty()) return std::optional<crawl::UrlFilter>();
  NUTCHFS_ASSIGN_OR_RETURN(auto filter, crawl::UrlFilter::Load(env, inv.crawl.filter));
  return std::optional<crawl::UrlFilter>(std::move(filter));
}

// The db's pages as they were before the session; a failed lookup is an I/O failure.
crawl::PageLookup LookupIn(const webdb::Reader& reader) {
  return [&reader](std::string_view url) -> Result<std::optional<webdb::Page>> {
    auto page = reader.GetPage(url);
    if (!page) return Err(Status::IOError("db lookup of " + std::string(url) + ": " +
                                          page.error().message()));
    return page;
  };
}

crawl::UpdateOptions UpdateOptionsOf(const Invocation& inv, const crawl::UrlFilter* filter) {
  crawl::UpdateOptions o;
  o.links.honour_nofollow = !inv.crawl.follow_nofollow;
  o.links.max_anchor_bytes = inv.crawl.max_anchor;
  o.links.max_outlinks = inv.crawl.max_outlinks;
  o.filter = filter;
  o.max_retries = inv.crawl.max_retries;
  o.retry_delay_ms = inv.crawl.retry_delay_ms;
  o.skip_bad = inv.crawl.skip_bad;
  return o;
}

Status InjectAll(nutchfs::Env& env, const Invocation& inv, crawl::Injector& injector) {
  for (const std::string& path : inv.inputs) {
    NUTCHFS_RETURN_IF_ERROR(injector.AddFile(env, path));
  }
  return Status::OK();
}


// Reports the reading of the WARC files to reporter: records, and the fraction of the
// file's bytes read (unknown when its size is).
void ReportWarcReading(nutchfs::Env& env, ProgressReporter& reporter, crawl::UpdateOptions* o) {
  o->on_record = [&env, &reporter, path_of_size = std::string(), size = uint64_t{0}](
                     const std::string& path, uint64_t records, uint64_t bytes) mutable {
    if (path != path_of_size) {
      path_of_size = path;
      auto got = env.GetFileSize(path);
      size = got ? *got : 0;
    }
    reporter.Report("reading " + path.substr(path.rfind('/') + 1), records,
                    size > 0 ? static_cast<double>(bytes) / static_cast<double>(size) : -1);
  };
}

Status ConvertAll(nutchfs::Env& env, const Invocation& inv, crawl::WarcConverter& converter) {
  for (const std::string& path : inv.inputs) {
    NUTCHFS_RETURN_IF_ERROR(AsBadInput(converter.AddFile(env, path)));
  }
  if (inv.crawl.fetchlist.empty()) return Status::OK();
  return converter.AddFetchList(env, inv.crawl.fetchlist, nutchfs::NowMs());
}

std::string InjectSummary(const crawl::InjectStats& s) {
  return fmt::format("{{\"urls\":{},\"filtered\":{},\"bad\":{}}}\n", s.urls, s.filtered, s.bad);
}

std::string UpdateSummary(const crawl::UpdateStats& s, double apply_seconds) {
  std::string skipped;
  for (const auto& [reason, n] : s.skipped) {
    if (!skipped.empty()) skipped += ',';
    webdb::AppendJsonString(reason, &skipped);  // a WARC-Type is any text
    skipped += fmt::format(":{}", n);
  }
  return fmt::format(
      "{{\"records\":{},\"pagesFetched\":{},\"html\":{},\"other\":{},\"redirects\":{},"
      "\"gone\":{},\"failures\":{},\"networkFailures\":{},\"deleted\":{},\"revisits\":{},"
      "\"links\":{},\"htmlBytes\":{},\"legacyCharset\":{},\"bad\":{},\"skipped\":{{{}}},"
      "\"seconds\":{{\"read\":{:.3f},\"http\":{:.3f},\"links\":{:.3f},\"calls\":{:.3f},"
      "\"apply\":{:.3f}}}}}\n",
      s.records, s.pages_fetched(), s.html_pages, s.other_pages, s.redirects, s.gone, s.failures,
      s.network_failures, s.deleted, s.revisits, s.links, s.html_bytes, s.legacy_charset,
      s.bad_records, skipped,
      s.read_ns / 1e9, s.http_ns / 1e9, s.links_ns / 1e9, s.calls_ns / 1e9, apply_seconds);
}

}  // namespace

Result<int> RunInject(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(auto filter, LoadFilter(env, inv));
  NUTCHFS_ASSIGN_OR_RETURN(auto session, CrawlSession::Open(env, inv));
  crawl::Injector injector({filter ? &*filter : nullptr, inv.crawl.skip_bad}, session->sink());
  NUTCHFS_RETURN_IF_ERROR(InjectAll(env, inv, injector));
  NUTCHFS_RETURN_IF_ERROR(session->Commit());
  NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, InjectSummary(injector.stats())));
  return kExitOk;
}

Result<int> RunUpdate(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(auto filter, LoadFilter(env, inv));
  NUTCHFS_ASSIGN_OR_RETURN(auto reader, OpenReader(env, inv));
  NUTCHFS_ASSIGN_OR_RETURN(auto session, CrawlSession::Open(env, inv));
  ProgressReporter reporter(stderr);
  crawl::UpdateOptions options = UpdateOptionsOf(inv, filter ? &*filter : nullptr);
  if (!inv.quiet) ReportWarcReading(env, reporter, &options);
  crawl::WarcConverter converter(std::move(options), LookupIn(*reader), session->sink());
  NUTCHFS_RETURN_IF_ERROR(ConvertAll(env, inv, converter));
  auto start = std::chrono::steady_clock::now();
  NUTCHFS_RETURN_IF_ERROR(session->Commit());
  NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, UpdateSummary(converter.stats(), Seconds(start))));
  return kExitOk;
}

// Copies the file at path to out.
Status CopyTo(nutchfs::Env& env, const std::string& path, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(auto in, env.NewSequentialFile(path));
  std::string buf(size_t{1} << 20, '\0');
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view chunk, in->Read(buf.size(), buf.data()));
    if (chunk.empty()) return Status::OK();
    NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, chunk));
  }
}

// Writes text to file, a megabyte at a time as it grows.
Status Spill(nutchfs::WritableFile& file, std::string& text, bool all) {
  if (!all && text.size() < (size_t{1} << 20)) return Status::OK();
  NUTCHFS_RETURN_IF_ERROR(file.Append(text));
  text.clear();
  return Status::OK();
}

crawl::GenerateOptions GenerateOptionsOf(const Invocation& inv, const std::string& tmp_dir) {
  crawl::GenerateOptions o;
  o.top_n = inv.crawl.top;
  o.max_per_group = inv.crawl.max_per_host;
  o.group_by = inv.crawl.by_domain ? crawl::GenerateOptions::GroupBy::kDomain
                                   : crawl::GenerateOptions::GroupBy::kHost;
  o.now_ms = inv.crawl.now.value_or(nutchfs::NowMs());
  o.memory_budget = inv.memory_budget;
  o.tmp_dir = tmp_dir;
  return o;
}

// Runs the generator into two scratch files: the fetch list, and unless --dry-run the
// lease (addPage calls) as a call file. The generator's sort memory is freed on return.
Result<crawl::GenerateStats> GenerateToFiles(nutchfs::Env& env, const Invocation& inv,
                                             const std::string& dir) {
  NUTCHFS_ASSIGN_OR_RETURN(auto reader, OpenReader(env, inv));
  crawl::GenerateOptions o = GenerateOptionsOf(inv, dir + "/sort");
  ProgressReporter reporter(stderr);
  if (!inv.quiet) o.progress = reporter.AsProgressFn();
  NUTCHFS_ASSIGN_OR_RETURN(auto list, env.NewWritableFile(dir + "/fetchlist.txt"));
  std::unique_ptr<nutchfs::WritableFile> lease_file;
  std::unique_ptr<webdb::JsonCallWriter> lease;
  if (!inv.crawl.dry_run) {
    NUTCHFS_ASSIGN_OR_RETURN(lease_file, env.NewWritableFile(dir + "/lease.jsonl"));
    lease = std::make_unique<webdb::JsonCallWriter>(webdb::JsonCallWriter::ToFile(*lease_file));
  }
  std::string text;
  crawl::GenerateStats stats;
  NUTCHFS_RETURN_IF_ERROR(crawl::Generate(env, *reader, o, [&](const webdb::Page& page) -> Status {
    text += page.url;
    text += '\n';
    NUTCHFS_RETURN_IF_ERROR(Spill(*list, text, /*all=*/false));
    if (!lease) return Status::OK();
    webdb::Page leased = page;
    leased.next_fetch = o.now_ms + inv.crawl.lease_ms;
    return lease->AddPage(leased);
  }, &stats));
  NUTCHFS_RETURN_IF_ERROR(Spill(*list, text, /*all=*/true));
  NUTCHFS_RETURN_IF_ERROR(list->Close());
  if (lease) {
    NUTCHFS_RETURN_IF_ERROR(lease->Flush());
    NUTCHFS_RETURN_IF_ERROR(lease_file->Close());
  }
  return stats;
}

// Generate, then the lease session, then the fetch list: each step has the whole
// --memory to itself, and no fetch list appears unless its pages are leased.
Result<int> RunGenerate(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(auto scratch, ScratchDir::Create(env, "generate"));
  NUTCHFS_ASSIGN_OR_RETURN(crawl::GenerateStats stats, GenerateToFiles(env, inv, scratch->path()));
  if (!inv.crawl.dry_run) {
    NUTCHFS_RETURN_IF_ERROR(
        CrawlSession::ApplyCallFile(env, inv, scratch->path() + "/lease.jsonl"));
  }
  if (inv.crawl.out.empty()) {
    NUTCHFS_RETURN_IF_ERROR(CopyTo(env, scratch->File("fetchlist.txt"), out));
  } else {
    NUTCHFS_RETURN_IF_ERROR(env.CopyWithin(scratch->File("fetchlist.txt"), inv.crawl.out));
  }
  if (!inv.quiet) {
    std::fputs(fmt::format("webdb: generate: {} pages, {} due, {} over the per-host cap, {} "
                           "selected{}\n",
                           stats.pages, stats.due, stats.capped, stats.selected,
                           inv.crawl.dry_run ? "" : ", leased")
                   .c_str(),
               stderr);
  }
  return kExitOk;
}

Result<int> RunCalls(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(auto filter, LoadFilter(env, inv));
  webdb::JsonCallWriter sink(webdb::JsonCallWriter::ToStream(out, "standard output"));
  Status s;
  if (inv.subcommand == "inject") {
    crawl::Injector injector({filter ? &*filter : nullptr, inv.crawl.skip_bad}, sink);
    s = InjectAll(env, inv, injector);
  } else {
    NUTCHFS_ASSIGN_OR_RETURN(auto reader, OpenReader(env, inv));
    ProgressReporter reporter(stderr);
    crawl::UpdateOptions options = UpdateOptionsOf(inv, filter ? &*filter : nullptr);
    if (!inv.quiet) ReportWarcReading(env, reporter, &options);
    crawl::WarcConverter converter(std::move(options), LookupIn(*reader), sink);
    s = ConvertAll(env, inv, converter);
  }
  if (!s.ok()) {
    (void)sink.Poison(s.message());  // the error below is what matters
    return Err(s);
  }
  NUTCHFS_RETURN_IF_ERROR(sink.Flush());
  return kExitOk;
}

}  // namespace tools
