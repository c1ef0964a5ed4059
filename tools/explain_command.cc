#include "tools/explain_command.h"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <vector>

#include "nutchfs/clock.h"
#include "tools/cli_commands.h"
#include "webdb/calls/json_out.h"
#include "webdb/db/versions.h"
#include "webdb/inspect/explain.h"

namespace tools {

using webdb::AppendJsonString;
using webdb::AppendLinkJson;
using webdb::AppendPageJson;

namespace {

void AppendContributionJson(const webdb::Contribution& c, std::string* out) {
  *out += fmt::format("{{\"from\":\"{}\",\"pages\":{},\"firstUrl\":", webdb::Md5Hex(c.from),
                      c.pages);
  AppendJsonString(c.first_url, out);
  *out += fmt::format(",\"share\":{}}}", c.share);
}

void AppendContributionText(const webdb::Contribution& c, std::string* out) {
  *out += fmt::format("{:.6g} from content {} ({} page{}: {}{})", c.share, webdb::Md5Hex(c.from),
                      c.pages, c.pages == 1 ? "" : "s", c.first_url, c.pages > 1 ? ", ..." : "");
}

template <typename Record, typename AppendFn>
void AppendArray(const std::vector<Record>& records, AppendFn append, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < records.size(); ++i) {
    if (i > 0) out->push_back(',');
    append(records[i], out);
  }
  out->push_back(']');
}

void AppendHistoryJson(const webdb::History& h, std::string* out) {
  *out += "{\"versions\":[";
  for (size_t i = 0; i < h.versions.size(); ++i) {
    const webdb::VersionRecord& v = h.versions[i];
    *out += fmt::format("{}{{\"version\":{},\"rollbackTo\":{},\"page\":", i > 0 ? "," : "",
                        v.version, v.restores > 0 ? std::to_string(v.restores) : "null");
    if (v.page) {
      AppendPageJson(*v.page, out);
    } else {
      *out += "null";
    }
    out->push_back('}');
  }
  *out += "],\"appeared\":";
  AppendJsonString(h.appeared, out);
  *out += ",\"removed\":";
  AppendJsonString(h.removed, out);
  *out += ",\"goneLinks\":[";
  for (size_t i = 0; i < h.gone_links.size(); ++i) {
    const webdb::GoneLink& g = h.gone_links[i];
    *out += fmt::format("{}{{\"link\":", i > 0 ? "," : "");
    AppendLinkJson(g.link, out);
    *out += fmt::format(",\"direction\":\"{}\",\"lastVersion\":{},\"goneIn\":{},\"why\":",
                        g.outlink ? "out" : "in", g.last_version, g.gone_in);
    AppendJsonString(g.why, out);
    out->push_back('}');
  }
  *out += "]}";
}

std::string ExplainJson(std::string_view url, const webdb::Explanation& e,
                        const std::optional<webdb::History>& h) {
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
  out += ",\"topContributions\":";
  AppendArray(e.top_contributions, AppendContributionJson, &out);
  out += fmt::format(",\"due\":{},\"rank\":{},\"duePages\":{}", e.due,
                     e.due ? std::to_string(e.rank) : "null", e.due_pages);
  if (h) {
    out += ",\"history\":";
    AppendHistoryJson(*h, &out);
  }
  out += "}\n";
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

void AppendHistoryText(const webdb::History& h, std::string* out) {
  *out += "in the kept versions:\n";
  const webdb::Md5* md5 = nullptr;
  for (const webdb::VersionRecord& v : h.versions) {
    *out += fmt::format("  version {}{}: ", v.version,
                        v.restores > 0 ? fmt::format(" (rollback to {})", v.restores) : "");
    if (!v.page) {
      *out += "no page\n";
      md5 = nullptr;
      continue;
    }
    if (md5 != nullptr && *md5 != v.page->md5) *out += "md5 changed; ";
    md5 = &v.page->md5;
    AppendPageJson(*v.page, out);
    out->push_back('\n');
  }
  if (!h.appeared.empty()) *out += "page appeared " + h.appeared + "\n";
  if (!h.removed.empty()) *out += "page removed by " + h.removed + "\n";
  for (const webdb::GoneLink& g : h.gone_links) {
    *out += fmt::format("{} gone after version {}: {}: ", g.outlink ? "outlink" : "inlink",
                        g.last_version, g.why);
    AppendLinkJson(g.link, out);
    out->push_back('\n');
  }
}

std::string ExplainText(std::string_view url, const webdb::Explanation& e,
                        const std::optional<webdb::History>& h) {
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
  if (e.page) {
    out += fmt::format("score {}: what its inlinks give it (r / outdeg of their pages), "
                       "largest first:\n",
                       e.page->score);
    AppendLines("top contributions", e.top_contributions, AppendContributionText, &out);
  }
  if (e.due) {
    out += fmt::format("due: rank {} of {} due pages for generate\n", e.rank, e.due_pages);
  } else {
    out += fmt::format("not due ({} due pages)\n", e.due_pages);
  }
  if (h) AppendHistoryText(*h, &out);
  return out;
}

// The url's history in the kept versions (a distributed db: rounds) of the db, up to
// the version `reader` reads (inv.version, or the current one).
Result<webdb::History> HistoryOf(nutchfs::Env& env, const Invocation& inv,
                                 const webdb::Reader& reader) {
  NUTCHFS_ASSIGN_OR_RETURN(webdb::VersionList list, ListKeptVersions(env, inv));
  const uint64_t explained = inv.version.value_or(list.versions.front().version);
  std::vector<std::unique_ptr<webdb::Reader>> readers;
  std::vector<webdb::KeptVersion> kept;
  for (auto v = list.versions.rbegin(); v != list.versions.rend(); ++v) {
    if (v->version > explained) break;
    if (!v->damaged.empty()) continue;  // its manifest cannot be read (versions lists it)
    const webdb::Reader* r = &reader;
    if (v->version != explained) {
      auto opened = OpenReaderAt(env, inv, v->version);
      if (!opened && opened.error().IsNotFound()) continue;  // no longer kept
      if (!opened) return Err(opened.error());
      readers.push_back(std::move(*opened));
      r = readers.back().get();
    }
    kept.push_back({v->version, v->restores, r});
  }
  return webdb::ExplainHistory(kept, *inv.url);
}

}  // namespace

Result<int> RunExplain(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(std::unique_ptr<webdb::Reader> reader, OpenReader(env, inv));
  NUTCHFS_ASSIGN_OR_RETURN(webdb::Explanation e,
                           webdb::Explain(*reader, *inv.url, nutchfs::NowMs()));
  NUTCHFS_ASSIGN_OR_RETURN(webdb::History history, HistoryOf(env, inv, *reader));
  NUTCHFS_RETURN_IF_ERROR(WriteToStream(
      out, inv.json ? ExplainJson(*inv.url, e, history) : ExplainText(*inv.url, e, history)));
  return kExitOk;
}

}  // namespace tools
