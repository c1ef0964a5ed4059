#include "distwriter/round_manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "nutchfs/nutchfile.h"
#include "webdb/util/crc32c.h"

namespace distwriter {
namespace {

// Version 2 adds the rank line, 3 run lines; a round is written in the lowest version
// that holds its content, so that its readers need not be newer than it.
constexpr std::string_view kMagicLine = "webdb-round 1\n";
constexpr std::string_view kMagicLineV2 = "webdb-round 2\n";
constexpr std::string_view kMagicLineV3 = "webdb-round 3\n";
constexpr int kMaxWriters = 4096;

std::string Hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

bool Unhex(std::string_view hex, std::string* out) {
  if (hex.size() % 2 != 0) return false;
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    unsigned v = 0;
    if (std::sscanf(std::string(hex.substr(i, 2)).c_str(), "%2x", &v) != 1) return false;
    out->push_back(static_cast<char>(v));
  }
  return true;
}

Status Bad(const std::string& path, int line, std::string_view why) {
  return Status::Corruption(fmt::format("{}:{}: {}", path, line, why));
}

// "holders I a,b,c": machine names, none twice, for a writer not given before.
Status ParseHolders(std::istringstream& f, size_t i, RoundManifest* m) {
  std::string list;
  if (!(f >> list) || !(f >> std::ws).eof()) return Status::Corruption("holders");
  m->holders.resize(m->sections.size());
  if (!m->holders[i].empty()) return Status::Corruption("holders given twice");
  std::vector<std::string> machines;
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    std::string name = list.substr(start, comma - start);
    NUTCHFS_RETURN_IF_ERROR(nutchfs::ValidateComponent("holder machine", name));
    if (std::find(machines.begin(), machines.end(), name) != machines.end()) {
      return Status::Corruption("holder " + name + " named twice");
    }
    machines.push_back(std::move(name));
    start = comma + 1;
  }
  m->holders[i] = std::move(machines);
  return Status::OK();
}

// Applies one "key ..." line of a round manifest of this format to m.
Status ParseLine(const std::string& line, int format, RoundManifest* m) {
  std::istringstream f(line);
  std::string word;
  f >> word;
  if (word == "version") return (f >> m->version) ? Status::OK() : Status::Corruption("version");
  if (word == "token") return (f >> m->token) ? Status::OK() : Status::Corruption("token");
  if (word == "keep") {
    return (f >> m->keep) && m->keep >= 1 && m->keep <= webdb::kMaxKeep
               ? Status::OK()
               : Status::Corruption(fmt::format("keep is not in 1..{}", webdb::kMaxKeep));
  }
  if (word == "time") {
    return (f >> m->time_ms) && m->time_ms > 0 ? Status::OK() : Status::Corruption("time");
  }
  if (word == "rollback") {
    return (f >> m->restores) && m->restores > 0 ? Status::OK() : Status::Corruption("rollback");
  }
  if (word == "rank" && format >= 2 && !m->rank) {
    return webdb::ParseRankFields(f, &m->rank.emplace()) && (f >> std::ws).eof()
               ? Status::OK()
               : Status::Corruption("rank");
  }
  if (word == "writers") {
    if (!(f >> m->k) || m->k < 1 || m->k > kMaxWriters) return Status::Corruption("writers");
    m->digests.assign(m->k, "");
    m->sections.assign(m->k, webdb::Manifest{});
    return Status::OK();
  }
  size_t i = 0;
  std::string a;
  if (!(f >> i) || i >= m->sections.size()) return Status::Corruption("bad index");
  if (word == "digest") return (f >> m->digests[i]) ? Status::OK() : Status::Corruption("digest");
  if (word == "holders") return ParseHolders(f, i, m);
  if (word == "breakpoint") {
    std::string url;
    if (i != m->breakpoints.size() || !(f >> a) || !Unhex(a, &url)) {
      return Status::Corruption("breakpoint");
    }
    m->breakpoints.push_back(std::move(url));
    return Status::OK();
  }
  const bool run = word == "run" && format >= 3;
  if (word != "section" && !run) return Status::Corruption("unknown line");
  std::string table;
  webdb::RunFile r;
  webdb::TableFile& t = r.file;
  uint64_t version = 0;
  if (!(f >> version >> table >> t.name >> t.records >> t.size >> std::hex >> t.crc)) {
    return Status::Corruption(word);
  }
  if (run) {
    if (!(f >> t.id >> std::dec >> r.inserts >> r.removes) || !(f >> std::ws).eof() ||
        r.inserts + r.removes > t.records || r.inserts + r.removes < r.inserts) {
      return Status::Corruption("run");
    }
  } else if (!(f >> std::ws).eof() && (!(f >> t.id) || !(f >> std::ws).eof())) {
    // The file id is absent from rounds written before file ids.
    return Status::Corruption("section");
  }
  auto id = webdb::ParseTableName(table);
  if (!id) return id.error();
  NUTCHFS_RETURN_IF_ERROR(webdb::CheckTableFileName(t.name));
  webdb::Manifest& section = m->sections[i];
  if (section.NamesTableFile(t.name)) return Status::Corruption("file named twice");
  const int n = static_cast<int>(*id);
  if (run) {
    if (section.tables[n].empty()) return Status::Corruption("run before its section line");
    section.runs[n].push_back(r);
    return Status::OK();
  }
  section.version = version;
  if (!section.tables[n].empty()) return Status::Corruption("table named twice");
  section.tables[n].push_back(t);
  return Status::OK();
}

}  // namespace

void RoundManifest::SetHolders(int i, std::vector<std::string> machines,
                               const std::string& alone) {
  if (machines == std::vector<std::string>{alone}) machines.clear();
  if (machines.empty() && holders.empty()) return;
  holders.resize(static_cast<size_t>(k));
  holders[i] = std::move(machines);
  // None recorded at all is written (and compares) as no holders lines.
  if (std::all_of(holders.begin(), holders.end(), [](const auto& h) { return h.empty(); })) {
    holders.clear();
  }
}

std::vector<std::string> RoundManifest::HoldersOf(int i, const std::string& alone) const {
  if (static_cast<size_t>(i) < holders.size() && !holders[i].empty()) return holders[i];
  return {alone};
}

uint64_t RoundManifest::num_pages() const {
  uint64_t n = 0;
  for (const auto& s : sections) n += s.num_pages();
  return n;
}

uint64_t RoundManifest::num_links() const {
  uint64_t n = 0;
  for (const auto& s : sections) n += s.num_links();
  return n;
}

std::string RoundManifest::Encode() const {
  bool layered = false;
  for (const webdb::Manifest& section : sections) {
    for (const webdb::TableRuns& runs : section.runs) layered = layered || !runs.empty();
  }
  std::string out(layered ? kMagicLineV3 : rank ? kMagicLineV2 : kMagicLine);
  out += fmt::format("version {}\nwriters {}\n", version, k);
  if (!token.empty()) out += fmt::format("token {}\n", token);
  // Written only when they say something: rounds of older writers decode the same.
  if (keep != webdb::kDefaultKeep) out += fmt::format("keep {}\n", keep);
  if (restores != 0) out += fmt::format("rollback {}\n", restores);
  if (time_ms != 0) out += fmt::format("time {}\n", time_ms);
  if (rank) out += "rank " + webdb::RankFields(*rank) + "\n";
  for (int i = 0; i < k; ++i) {
    if (!digests[i].empty()) out += fmt::format("digest {} {}\n", i, digests[i]);
  }
  for (size_t i = 0; i < breakpoints.size(); ++i) {
    out += fmt::format("breakpoint {} {}\n", i, Hex(breakpoints[i]));
  }
  for (int i = 0; i < k; ++i) {
    for (int t = 0; t < webdb::kNumTables; ++t) {
      const webdb::TableFile& f = SectionFile(sections[i], static_cast<webdb::TableId>(t));
      const char* name = webdb::TableName(static_cast<webdb::TableId>(t));
      out += fmt::format("section {} {} {} {} {} {} {:08x} {:016x}\n", i, sections[i].version,
                         name, f.name, f.records, f.size, f.crc, f.id);
      for (const webdb::RunFile& r : sections[i].runs[t]) {
        out += fmt::format("run {} {} {} {} {} {} {:08x} {:016x} {} {}\n", i, sections[i].version,
                           name, r.file.name, r.file.records, r.file.size, r.file.crc, r.file.id,
                           r.inserts, r.removes);
      }
    }
  }
  for (size_t i = 0; i < holders.size(); ++i) {
    if (holders[i].empty()) continue;
    std::string list;
    for (const std::string& m : holders[i]) list += (list.empty() ? "" : ",") + m;
    out += fmt::format("holders {} {}\n", i, list);
  }
  out += fmt::format("crc {:08x}\n", webdb::crc32c::Value(out));
  return out;
}

Result<RoundManifest> RoundManifest::Decode(std::string_view text, const std::string& path) {
  const size_t crc_pos = text.rfind("crc ");
  uint32_t stored = 0;
  const int format = text.starts_with(kMagicLineV3)   ? 3
                     : text.starts_with(kMagicLineV2) ? 2
                     : text.starts_with(kMagicLine)   ? 1
                                                      : 0;
  if (format == 0 || crc_pos == std::string_view::npos || text.back() != '\n' ||
      std::sscanf(std::string(text.substr(crc_pos + 4)).c_str(), "%x", &stored) != 1 ||
      stored != webdb::crc32c::Value(text.substr(0, crc_pos))) {
    return Err(Bad(path, 1, "not a complete round manifest (bad magic or checksum)"));
  }
  RoundManifest m;
  std::istringstream in{std::string(text.substr(kMagicLine.size(), crc_pos - kMagicLine.size()))};
  std::string line;
  for (int line_no = 2; std::getline(in, line); ++line_no) {
    Status s = ParseLine(line, format, &m);
    if (!s.ok()) return Err(Bad(path, line_no, s.message() + " in '" + line + "'"));
  }
  if (m.version == 0 || m.k == 0) return Err(Bad(path, 1, "no version or writer count"));
  if (m.restores >= m.version) {
    return Err(Bad(path, 1, fmt::format("round {} restores round {}, not an earlier one", m.version,
                                        m.restores)));
  }
  // Every section names its four table files (a file name is never empty).
  for (int i = 0; i < m.k; ++i) {
    for (int t = 0; t < webdb::kNumTables; ++t) {
      if (m.sections[i].tables[t].empty()) {
        return Err(Bad(path, 1, fmt::format("section {} has no {} file", i,
                                            webdb::TableName(static_cast<webdb::TableId>(t)))));
      }
    }
  }
  if (!m.breakpoints.empty()) {
    Status s = ValidateBreakpoints(m.breakpoints, m.k);
    if (!s.ok()) return Err(Bad(path, 1, s.message()));
  }
  return m;
}

}  // namespace distwriter
