#include "tools/ops_commands.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <chrono>
#include <filesystem>

#include "tools/cli_commands.h"
#include "webdb/db_stats.h"
#include "webdb/explain.h"
#include "webdb/json_out.h"
#include "webdb/verify.h"

namespace tools {
namespace {

using webdb::AppendJsonString;
using webdb::AppendLinkJson;
using webdb::AppendPageJson;
using webdb::StatsReport;

// At most this many findings are repeated in verify's JSON summary.
constexpr size_t kJsonFindings = 100;

// A new scratch directory for the verify sorts, under $TMPDIR (or /tmp).
Result<std::string> MakeScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "webdb-verify-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Err(Status::FromErrno("mkdtemp " + pattern, errno));
  }
  return pattern;
}

void AppendFindingJson(const webdb::Finding& f, std::string* out) {
  out->append("{\"file\":");
  AppendJsonString(f.file, out);
  out->append(",\"where\":");
  AppendJsonString(f.where, out);
  out->append(",\"what\":");
  AppendJsonString(f.what, out);
  out->push_back('}');
}

std::string VerifyJson(const webdb::VerifySummary& s, const std::vector<webdb::Finding>& first) {
  std::string out = fmt::format(
      "{{\"clean\":{},\"version\":{},\"files\":{},\"rows\":{},\"pages\":{},\"links\":{},"
      "\"findings\":{},\"writerRunning\":{},\"first\":[",
      s.clean(), s.version, s.files, s.rows, s.pages, s.links, s.findings, s.writer_running);
  for (size_t i = 0; i < first.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendFindingJson(first[i], &out);
  }
  out += "]}\n";
  return out;
}

}  // namespace

Result<int> RunVerify(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(std::string scratch, MakeScratchDir());
  std::vector<webdb::Finding> first;
  Status write_status;
  webdb::VerifyOptions options;
  options.memory_budget = inv.memory_budget;
  options.tmp_env = &env;
  options.tmp_dir = scratch;
  options.version = inv.version;
  options.on_finding = [&](const webdb::Finding& f) {
    if (inv.json && first.size() < kJsonFindings) first.push_back(f);
    std::string line = f.ToString() + "\n";
    if (inv.json) {
      std::fputs(line.c_str(), stderr);
    } else if (write_status.ok()) {
      write_status = WriteToStream(out, line);
    }
  };
  auto summary = webdb::VerifyDb(env, inv.db, options);
  Status removed = env.RemoveDirRecursively(scratch);
  if (!summary) return Err(summary.error());
  NUTCHFS_RETURN_IF_ERROR(write_status);
  NUTCHFS_RETURN_IF_ERROR(removed);
  if (inv.json) NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, VerifyJson(*summary, first)));
  if (!inv.quiet) {
    std::fputs(fmt::format("webdb: verified version {}: {} files, {} rows, {} findings\n",
                           summary->version, summary->files, summary->rows, summary->findings)
                   .c_str(),
               stderr);
  }
  return summary->clean() ? kExitOk : kExitBadInput;
}

namespace {

void AppendHosts(const std::vector<webdb::HostCount>& hosts, std::string_view what,
                 std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append("{\"host\":");
    AppendJsonString(hosts[i].host, out);
    *out += fmt::format(",\"{}\":{}}}", what, hosts[i].count);
  }
  out->push_back(']');
}

void AppendHistogram(const webdb::Histogram& h, std::string* out) {
  out->push_back('{');
  for (size_t i = 0; i < h.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendJsonString(h[i].first, out);
    *out += fmt::format(":{}", h[i].second);
  }
  out->push_back('}');
}

std::string StatsJson(const StatsReport& r) {
  std::string out = fmt::format("{{\"pages\":{},\"links\":{},\"tables\":{{", r.pages, r.links);
  for (int t = 0; t < webdb::kNumTables; ++t) {
    out += fmt::format("{}\"{}\":{{\"records\":{},\"bytes\":{}}}", t > 0 ? "," : "",
                       webdb::TableName(static_cast<webdb::TableId>(t)), r.tables[t].records,
                       r.tables[t].bytes);
  }
  out.push_back('}');
  if (!r.quick) {
    out += fmt::format(",\"duePages\":{},\"topHostsByPages\":", r.due_pages);
    AppendHosts(r.top_hosts_by_pages, "pages", &out);
    out += ",\"topHostsByInlinks\":";
    AppendHosts(r.top_hosts_by_inlinks, "inlinks", &out);
    out += ",\"outdegree\":";
    AppendHistogram(r.outdegree, &out);
    out += ",\"score\":";
    AppendHistogram(r.score, &out);
    out += ",\"retries\":";
    AppendHistogram(r.retries, &out);
  }
  out += "}\n";
  return out;
}

void AppendTextHosts(std::string_view title, const std::vector<webdb::HostCount>& hosts,
                     std::string* out) {
  *out += fmt::format("{}:\n", title);
  for (const auto& h : hosts) *out += fmt::format("  {:>12}  {}\n", h.count, h.host);
}

void AppendTextHistogram(std::string_view title, const webdb::Histogram& h, std::string* out) {
  *out += fmt::format("{}:\n", title);
  for (const auto& [label, count] : h) *out += fmt::format("  {:>12}  {}\n", label, count);
}

std::string StatsText(const StatsReport& r) {
  std::string out = fmt::format("pages {}\nlinks {}\n", r.pages, r.links);
  for (int t = 0; t < webdb::kNumTables; ++t) {
    out += fmt::format("{:<11} {:>12} records {:>14} bytes\n",
                       webdb::TableName(static_cast<webdb::TableId>(t)), r.tables[t].records,
                       r.tables[t].bytes);
  }
  if (r.quick) return out;
  out += fmt::format("due pages {}\n", r.due_pages);
  AppendTextHosts("top hosts by pages", r.top_hosts_by_pages, &out);
  AppendTextHosts("top hosts by inlinks", r.top_hosts_by_inlinks, &out);
  AppendTextHistogram("outdegree (links per content md5)", r.outdegree, &out);
  AppendTextHistogram("score", r.score, &out);
  AppendTextHistogram("retries", r.retries, &out);
  return out;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<int> RunStats(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<webdb::Reader> reader, OpenReader(env, inv));
  webdb::StatsOptions options;
  options.quick = inv.quick;
  options.now_ms = NowMs();
  NUTCHFS_ASSIGN_OR_RETURN(StatsReport report, webdb::ComputeStats(*reader, options));
  NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, inv.text ? StatsText(report) : StatsJson(report)));
  return kExitOk;
}

namespace {

template <typename Record, typename AppendFn>
void AppendArray(const std::vector<Record>& records, AppendFn append, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < records.size(); ++i) {
    if (i > 0) out->push_back(',');
    append(records[i], out);
  }
  out->push_back(']');
}

std::string ExplainJson(std::string_view url, const webdb::Explanation& e) {
  std::string out = "{\"url\":";
  AppendJsonString(url, &out);
  out += ",\"page\":";
  if (e.page) {
    AppendPageJson(*e.page, &out);
  } else {
    out += "null";
  }
  out += ",\"sameMd5\":";
  AppendArray(e.same_md5, AppendPageJson, &out);
  out += ",\"outlinks\":";
  AppendArray(e.outlinks, AppendLinkJson, &out);
  out += ",\"inlinks\":";
  AppendArray(e.inlinks, AppendLinkJson, &out);
  out += fmt::format(",\"due\":{},\"rank\":{},\"duePages\":{}}}\n", e.due,
                     e.due ? std::to_string(e.rank) : "null", e.due_pages);
  return out;
}

template <typename Record, typename AppendFn>
void AppendLines(std::string_view title, const std::vector<Record>& records, AppendFn append,
                 std::string* out) {
  *out += fmt::format("{} ({}):\n", title, records.size());
  for (const Record& r : records) {
    out->append("  ");
    append(r, out);
    out->push_back('\n');
  }
}

std::string ExplainText(std::string_view url, const webdb::Explanation& e) {
  std::string out = fmt::format("url {}\n", url);
  if (!e.page) {
    out += "no page at this url\n";
  } else {
    out += "page ";
    AppendPageJson(*e.page, &out);
    out.push_back('\n');
    AppendLines("other pages with its md5", e.same_md5, AppendPageJson, &out);
    AppendLines("outlinks", e.outlinks, AppendLinkJson, &out);
  }
  AppendLines("inlinks", e.inlinks, AppendLinkJson, &out);
  if (e.due) {
    out += fmt::format("due: rank {} of {} due pages for generate\n", e.rank, e.due_pages);
  } else {
    out += fmt::format("not due ({} due pages)\n", e.due_pages);
  }
  return out;
}

}  // namespace

Result<int> RunExplain(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<webdb::Reader> reader, OpenReader(env, inv));
  NUTCHFS_ASSIGN_OR_RETURN(webdb::Explanation e, webdb::Explain(*reader, *inv.url, NowMs()));
  NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, inv.json ? ExplainJson(*inv.url, e) : ExplainText(*inv.url, e)));
  return kExitOk;
}

}  // namespace tools
