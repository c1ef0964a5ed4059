#include "tools/ops_commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "distwriter/dist_reader.h"
#include "distwriter/dist_verify.h"
#include "nutchfs/clock.h"
#include "tools/cli_commands.h"
#include "tools/progress_reporter.h"
#include "tools/scratch_dir.h"
#include "webdb/calls/json_out.h"
#include "webdb/db/versions.h"
#include "webdb/inspect/db_stats.h"
#include "webdb/inspect/verify.h"

namespace tools {
namespace {

using webdb::AppendJsonString;
using webdb::StatsReport;

// At most this many findings are repeated in verify's JSON summary.
constexpr size_t kJsonFindings = 100;

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
      "{{\"clean\":{},\"version\":{},\"versionsChecked\":[{}],\"files\":{},\"rows\":{},"
      "\"pages\":{},\"links\":{},\"findings\":{},\"writerRunning\":{},\"first\":[",
      s.clean(), s.version, fmt::join(s.versions_checked, ","), s.files, s.rows, s.pages,
      s.links, s.findings, s.writer_running);
  for (size_t i = 0; i < first.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendFindingJson(first[i], &out);
  }
  out += "]}\n";
  return out;
}

// "version 7 and the tables of kept versions 6, 5 and 4" (a distributed db's versions
// are its rounds).
std::string WhatWasVerified(const webdb::VerifySummary& s) {
  std::string out = fmt::format("version {}", s.version);
  const std::vector<uint64_t>& v = s.versions_checked;
  if (v.size() < 2) return out;
  out += fmt::format(" and the tables of kept version{} ", v.size() > 2 ? "s" : "");
  for (size_t i = 1; i < v.size(); ++i) {
    if (i > 1) out += i + 1 == v.size() ? " and " : ", ";
    out += std::to_string(v[i]);
  }
  return out;
}

// The single-machine db at inv.db, or the distributed db of inv.config.
Result<webdb::VerifySummary> VerifyDbOf(nutchfs::Env& env, const Invocation& inv,
                                        const webdb::VerifyOptions& options) {
  if (inv.config.empty()) return webdb::VerifyDb(env, inv.db, options);
  NUTCHFS_ASSIGN_OR_RETURN(distwriter::DistConfig config, distwriter::DistConfig::Load(inv.config));
  return distwriter::VerifyDistDb(config, options);
}

}  // namespace

Result<int> RunVerify(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  // The verify sorts' files.
  NUTCHFS_ASSIGN_OR_RETURN(auto scratch, ScratchDir::Create(env, "verify"));
  std::vector<webdb::Finding> first;
  Status write_status;
  webdb::VerifyOptions options;
  options.memory_budget = inv.memory_budget;
  options.tmp_env = &env;
  options.tmp_dir = scratch->path();
  options.version = inv.version;
  ProgressReporter reporter(stderr);
  if (!inv.quiet) options.progress = reporter.AsProgressFn();
  options.on_finding = [&](const webdb::Finding& f) {
    if (inv.json && first.size() < kJsonFindings) first.push_back(f);
    std::string line = f.ToString() + "\n";
    if (inv.json) {
      std::fputs(line.c_str(), stderr);
    } else if (write_status.ok()) {
      write_status = WriteToStream(out, line);
    }
  };
  auto summary = VerifyDbOf(env, inv, options);
  if (!summary) return Err(summary.error());
  NUTCHFS_RETURN_IF_ERROR(write_status);
  if (inv.json) NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, VerifyJson(*summary, first)));
  if (!inv.quiet) {
    std::fputs(fmt::format("webdb: verified {}: {} files, {} rows, {} findings\n",
                           WhatWasVerified(*summary),
                           summary->files, summary->rows, summary->findings)
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
    const webdb::TableSize& size = r.tables[t];
    out += fmt::format(
        "{}\"{}\":{{\"records\":{},\"bytes\":{},\"runs\":{},\"lookupLayers\":{},"
        "\"scanAmplification\":{:.3f}}}",
        t > 0 ? "," : "", webdb::TableName(static_cast<webdb::TableId>(t)), size.records,
        size.bytes, size.runs, size.lookup_layers(), size.scan_amplification());
  }
  out.push_back('}');
  if (r.version > 0) {
    out += fmt::format(",\"version\":{},\"keep\":{},\"versionsKept\":{},\"rank\":", r.version,
                       r.keep, r.versions_kept);
    if (r.rank) {
      out += fmt::format(
          "{{\"iterations\":{},\"epsilon\":{},\"damping\":{},\"done\":{},\"l1\":{}}}",
          r.rank->options.iterations, r.rank->options.epsilon, r.rank->options.damping,
          r.rank->done, r.rank->l1);
    } else {
      out += "null";
    }
  }
  if (!r.section_holders.empty()) {
    out += ",\"sections\":[";
    for (size_t i = 0; i < r.section_holders.size(); ++i) {
      out += fmt::format("{}{{\"writer\":{},\"machines\":[", i > 0 ? "," : "", i);
      for (size_t m = 0; m < r.section_holders[i].size(); ++m) {
        if (m > 0) out.push_back(',');
        webdb::AppendJsonString(r.section_holders[i][m], &out);
      }
      out += "]}";
    }
    out.push_back(']');
  }
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
    const webdb::TableSize& size = r.tables[t];
    out += fmt::format("{:<11} {:>12} records {:>14} bytes {:>2} runs (lookups read {} layers, "
                       "scans {:.2f} rows a row)\n",
                       webdb::TableName(static_cast<webdb::TableId>(t)), size.records,
                       size.bytes, size.runs, size.lookup_layers(), size.scan_amplification());
  }
  if (r.version > 0) {
    out += fmt::format("version {}; {} versions kept (keep {})\n", r.version, r.versions_kept,
                       r.keep);
    if (r.rank) {
      out += fmt::format(
          "scores by rank: {} of at most {} iterations (epsilon {}, damping {}), the last "
          "changing them by {} in all\n",
          r.rank->done, r.rank->options.iterations, r.rank->options.epsilon,
          r.rank->options.damping, r.rank->l1);
    } else {
      out += "scores by rank: no (not ranked since the last update)\n";
    }
  }
  for (size_t i = 0; i < r.section_holders.size(); ++i) {
    std::string machines;
    for (const std::string& m : r.section_holders[i]) machines += (machines.empty() ? "" : ", ") + m;
    out += fmt::format("section {} on {}\n", i, machines);
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

// Counts and bytes from the manifest(s) alone — CURRENT and one manifest, or a round's —
// and the rank line.
Result<StatsReport> QuickReport(nutchfs::Env& env, const Invocation& inv,
                                std::optional<uint64_t> version) {
  StatsReport report;
  if (!inv.config.empty()) {
    NUTCHFS_ASSIGN_OR_RETURN(distwriter::RoundManifest round,
                             distwriter::ReadCommittedRound(inv.config, version));
    std::vector<const webdb::Manifest*> sections;
    for (const webdb::Manifest& m : round.sections) sections.push_back(&m);
    report = webdb::QuickStats(sections);
    report.rank = round.rank;
  } else {
    NUTCHFS_ASSIGN_OR_RETURN(webdb::Manifest m, webdb::ReadKeptManifest(env, inv.db, version));
    report = webdb::QuickStats({&m});
    report.rank = m.rank;
  }
  return report;
}

}  // namespace

Result<int> RunStats(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  StatsReport report;
  if (inv.quick) {
    NUTCHFS_ASSIGN_OR_RETURN(report, QuickReport(env, inv, inv.version));
  } else {
    NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<webdb::Reader> reader, OpenReader(env, inv));
    webdb::StatsOptions options;
    options.now_ms = nutchfs::NowMs();
    ProgressReporter reporter(stderr);
    if (!inv.quiet) options.progress = reporter.AsProgressFn();
    NUTCHFS_ASSIGN_OR_RETURN(report, webdb::ComputeStats(*reader, options));
  }
  NUTCHFS_ASSIGN_OR_RETURN(webdb::VersionList list, ListKeptVersions(env, inv));
  report.version = inv.version.value_or(list.versions.front().version);
  if (!inv.quick) {
    NUTCHFS_ASSIGN_OR_RETURN(StatsReport manifests, QuickReport(env, inv, report.version));
    report.rank = manifests.rank;
  }
  report.keep = list.keep;
  report.versions_kept = list.versions.size();
  if (!inv.config.empty()) {
    NUTCHFS_ASSIGN_OR_RETURN(report.section_holders,
                             distwriter::SectionHoldersOf(inv.config, report.version));
  }
  NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, inv.text ? StatsText(report) : StatsJson(report)));
  return kExitOk;
}

}  // namespace tools
