#include "tools/version_commands.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>

#include "distwriter/dist_config.h"
#include "distwriter/round_versions.h"
#include "tools/cli_commands.h"
#include "tools/step_observer.h"
#include "webdb/calls/json_out.h"
#include "webdb/db/compact.h"
#include "webdb/db/versions.h"
#include "webdb/db/writer.h"

namespace tools {
namespace {

// "2026-11-24 00:10:05 UTC", or "-" when unknown.
std::string TimeText(int64_t ms) {
  if (ms <= 0) return "-";
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  return fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", tm);
}

std::string VersionsJson(const webdb::VersionList& list) {
  std::string out = fmt::format("{{\"keep\":{},\"versions\":[", list.keep);
  for (size_t i = 0; i < list.versions.size(); ++i) {
    const webdb::VersionInfo& v = list.versions[i];
    if (!v.damaged.empty()) {
      out += fmt::format("{}{{\"version\":{},\"damaged\":", i > 0 ? "," : "", v.version);
      webdb::AppendJsonString(v.damaged, &out);
      out += "}";
      continue;
    }
    out += fmt::format(
        "{}{{\"version\":{},\"timeMs\":{},\"pages\":{},\"links\":{},\"bytes\":{},"
        "\"current\":{},\"rollbackTo\":{},\"readers\":{}}}",
        i > 0 ? "," : "", v.version, v.time_ms, v.pages, v.links, v.bytes, v.current,
        v.restores > 0 ? std::to_string(v.restores) : "null", v.readers);
  }
  return out + "]}\n";
}

std::string VersionsText(const webdb::VersionList& list) {
  std::string out = fmt::format("keep {}\n{:>8}  {:<23}  {:>12}  {:>12}  {:>14}  {}\n", list.keep,
                                "version", "time", "pages", "links", "bytes", "");
  for (const webdb::VersionInfo& v : list.versions) {
    if (!v.damaged.empty()) {
      out += fmt::format("{:>8}  damaged: {}\n", v.version, v.damaged);
      continue;
    }
    std::string notes = v.current ? "current" : "";
    if (v.restores > 0) notes += fmt::format("{}rollback to {}", notes.empty() ? "" : ", ", v.restores);
    if (v.readers > 0) notes += fmt::format("{}{} readers", notes.empty() ? "" : ", ", v.readers);
    out += fmt::format("{:>8}  {:<23}  {:>12}  {:>12}  {:>14}  {}\n", v.version,
                       TimeText(v.time_ms), v.pages, v.links, v.bytes, notes);
  }
  return out;
}

void Say(const Invocation& inv, const std::string& line) {
  if (!inv.quiet) std::fputs(("webdb: " + line + "\n").c_str(), stderr);
}

// what: "version", or "round" for a distributed db.
void SayRolledBack(const Invocation& inv, const webdb::RollbackResult& result,
                   std::string_view what) {
  if (!result.done) {
    Say(inv, fmt::format("{} {} already has the tables of {} {}: nothing to do", what,
                         result.version, what, *inv.version));
  } else {
    Say(inv, fmt::format("rolled back to {} {}: it is current as {} {}", what, *inv.version, what,
                         result.version));
  }
}

// A rollback refused because its target is damaged exits 3, as verify does on damage.
Status DamageIsBadInput(const Status& s) {
  return s.IsCorruption() ? Status::InvalidArgument(s.message()) : s;
}

}  // namespace

Result<int> RunVersions(nutchfs::Env& env, const Invocation& inv, std::FILE* out) {
  NUTCHFS_ASSIGN_OR_RETURN(webdb::VersionList list, ListKeptVersions(env, inv));
  NUTCHFS_RETURN_IF_ERROR(WriteToStream(out, inv.json ? VersionsJson(list) : VersionsText(list)));
  return kExitOk;
}

Result<int> RunRollback(nutchfs::Env& env, const Invocation& inv, std::FILE*) {
  if (!inv.config.empty()) {
    NUTCHFS_ASSIGN_OR_RETURN(distwriter::DistConfig config,
                             distwriter::DistConfig::Load(inv.config));
    auto rolled = distwriter::RollbackDistDb(config, *inv.version, StepObserver());
    if (!rolled) return Err(DamageIsBadInput(rolled.error()));
    const webdb::RollbackResult& result = *rolled;
    SayRolledBack(inv, result, "round");
    return kExitOk;
  }
  auto result = webdb::RollbackDb(env, inv.db, *inv.version, StepObserver());
  if (!result) return Err(DamageIsBadInput(WithUnlockHint(env, result.error(), inv.db)));
  SayRolledBack(inv, *result, "version");
  return kExitOk;
}

Result<int> RunDropVersion(nutchfs::Env& env, const Invocation& inv, std::FILE*) {
  if (!inv.config.empty()) {
    NUTCHFS_ASSIGN_OR_RETURN(distwriter::DistConfig config,
                             distwriter::DistConfig::Load(inv.config));
    NUTCHFS_RETURN_IF_ERROR(distwriter::DropDistRound(config, *inv.version));
    Say(inv, fmt::format("dropped round {} of {}", *inv.version, config.db()));
    return kExitOk;
  }
  Status s = webdb::DropVersion(env, inv.db, *inv.version);
  if (!s.ok()) return Err(WithUnlockHint(env, s, inv.db));
  Say(inv, fmt::format("dropped version {} of {}", *inv.version, inv.db));
  return kExitOk;
}

Result<int> RunKeep(nutchfs::Env& env, const Invocation& inv, std::FILE*) {
  if (!inv.config.empty()) {
    NUTCHFS_ASSIGN_OR_RETURN(distwriter::DistConfig config,
                             distwriter::DistConfig::Load(inv.config));
    NUTCHFS_ASSIGN_OR_RETURN(uint64_t round,
                             distwriter::SetDistKeep(config, *inv.keep, StepObserver()));
    Say(inv, fmt::format("{} keeps {} rounds (round {})", config.db(), *inv.keep, round));
    return kExitOk;
  }
  auto opened = webdb::Writer::Open(env, inv.db, webdb::WriterOptions{});
  if (!opened) return Err(WithUnlockHint(env, opened.error(), inv.db));
  (*opened)->set_keep(*inv.keep);
  NUTCHFS_RETURN_IF_ERROR((*opened)->Close());
  Say(inv, fmt::format("{} keeps {} versions", inv.db, *inv.keep));
  return kExitOk;
}

Result<int> RunCompact(nutchfs::Env& env, const Invocation& inv, std::FILE*) {
  if (!inv.config.empty()) {
    NUTCHFS_ASSIGN_OR_RETURN(distwriter::DistConfig config,
                             distwriter::DistConfig::Load(inv.config));
    NUTCHFS_ASSIGN_OR_RETURN(
        uint64_t round,
        distwriter::RewriteDistSections(
            config,
            [](int, nutchfs::Env& section_env, const std::string& dir, const webdb::Manifest& old,
               uint64_t version) { return webdb::CompactTables(section_env, dir, old, version); },
            StepObserver()));
    Say(inv, fmt::format("{}: every section's tables are their bases (round {})", config.db(),
                         round));
    return kExitOk;
  }
  auto result = webdb::CompactDb(env, inv.db, StepObserver());
  if (!result) return Err(WithUnlockHint(env, result.error(), inv.db));
  Say(inv, result->done ? fmt::format("compacted {}: version {}", inv.db, result->version)
                        : fmt::format("{} has no runs: nothing to do", inv.db));
  return kExitOk;
}

}  // namespace tools
