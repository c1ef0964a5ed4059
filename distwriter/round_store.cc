#include "distwriter/round_store.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "nutchfs/publish.h"

namespace distwriter {
namespace {

constexpr std::string_view kPrefix = "ROUND-";
constexpr char kCurrent[] = "CURRENT";

// The version of a temporary round file: "ROUND-<N>.tmp.*" (nutchfs::WriteFileAtomically)
// or ".tmp.ROUND-<N>.*" (nutchfs::PublishFile); nullopt for any other name.
std::optional<uint64_t> ParseTemporaryRoundFileName(std::string_view name) {
  constexpr std::string_view kTmp = ".tmp.";
  if (name.starts_with(kTmp)) {
    name.remove_prefix(kTmp.size());
    return ParseRoundFileName(name.substr(0, name.find('.')));
  }
  const size_t tmp = name.find(kTmp);
  if (tmp == std::string_view::npos) return std::nullopt;
  return ParseRoundFileName(name.substr(0, tmp));
}

}  // namespace

std::string RoundFileName(uint64_t version) { return fmt::format("ROUND-{:06d}", version); }

std::optional<uint64_t> ParseRoundFileName(std::string_view name) {
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  uint64_t version = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), version);
  if (ec != std::errc() || end != name.data() + name.size() || name.size() < 6 || version == 0) {
    return std::nullopt;
  }
  return version;
}

RoundStore::RoundStore(nutchfs::NutchFs& fs, const DistConfig& config, std::string scratch_dir)
    : fs_(fs), config_(config), scratch_dir_(std::move(scratch_dir)) {}

nutchfs::NutchFile RoundStore::DecidedFile(uint64_t version) const {
  return config_.MetaFile(RoundFileName(version));
}

std::string RoundStore::ScratchPath() const {
  return fmt::format("{}/round-store-{}.tmp", scratch_dir_, ::getpid());
}

Result<nutchfs::NutchFs::Located> RoundStore::View(const std::string& name) {
  return fs_.Locate(config_.MetaFile(name));
}

Result<uint64_t> RoundStore::InstalledVersion() {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, View(kCurrent));
  return ReadCurrent(at);
}

Result<uint64_t> RoundStore::InstalledVersionAt(const std::string& machine) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, fs_.LocateAt(config_.MetaFile(kCurrent), machine));
  return ReadCurrent(at);
}

Result<uint64_t> RoundStore::ReadCurrent(const nutchfs::NutchFs::Located& at) {
  auto text = nutchfs::ReadFileToString(*at.env, at.path);
  if (!text && text.error().IsNotFound()) {
    return Err(Status::NotFound(
        fmt::format("no distributed webdb '{}' ({} is missing): run distwriter create first",
                    config_.db(), at.path)));
  }
  if (!text) return Err(text.error());
  std::string_view name = *text;
  if (name.ends_with('\n')) name.remove_suffix(1);
  std::optional<uint64_t> version = ParseRoundFileName(name);
  if (!version) {
    return Err(Status::Corruption(
        fmt::format("{}: names no round ('{}')", at.path, text->substr(0, 100))));
  }
  return *version;
}

Result<RoundManifest> RoundStore::ReadInstalled() {
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t version, InstalledVersion());
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> round, ReadDecided(version));
  NUTCHFS_ASSIGN_OR_RETURN(auto at, View(RoundFileName(version)));
  if (!round) {
    return Err(Status::Corruption(at.path + ", which CURRENT names, is missing"));
  }
  if (round->k != config_.k) {
    return Err(Status::InvalidArgument(
        fmt::format("{}: the db has {} writers, the config {}", at.path, round->k, config_.k)));
  }
  return *round;
}

Result<std::optional<RoundManifest>> RoundStore::Decode(Result<std::string> text,
                                                        const std::string& where) {
  if (!text && text.error().IsNotFound()) return std::optional<RoundManifest>();
  if (!text) return Err(text.error());
  NUTCHFS_ASSIGN_OR_RETURN(RoundManifest round, RoundManifest::Decode(*text, where));
  return std::optional<RoundManifest>(std::move(round));
}

Result<std::optional<RoundManifest>> RoundStore::ReadDecided(uint64_t version) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, View(RoundFileName(version)));
  auto round = ReadRound(at, version);
  if (round || !round.error().IsCorruption()) return round;
  for (const std::string& machine : config_.cluster.FindGroup(kMetaGroup)->machines) {
    auto copy = ReadDecidedAt(version, machine);
    if (!copy || !*copy) continue;
    spdlog::warn("{} (webdb verify --config names it); using the copy of machine {}",
                 round.error().ToString(), machine);
    return copy;
  }
  return round;
}

Result<std::optional<RoundManifest>> RoundStore::ReadDecidedAt(uint64_t version,
                                                               const std::string& machine) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, fs_.LocateAt(DecidedFile(version), machine));
  return ReadRound(at, version);
}

Result<std::optional<RoundManifest>> RoundStore::ReadRound(const nutchfs::NutchFs::Located& at,
                                                           uint64_t version) {
  auto round = Decode(nutchfs::ReadFileToString(*at.env, at.path), at.path);
  if (round && *round && (*round)->version != version) {
    return Err(Status::Corruption(
        fmt::format("{}: holds round {}, not {}", at.path, (*round)->version, version)));
  }
  return round;
}

Result<std::optional<RoundManifest>> RoundStore::FindDecided(uint64_t version) {
  NUTCHFS_ASSIGN_OR_RETURN(std::optional<RoundManifest> here, ReadDecided(version));
  if (here) return here;
  const nutchfs::NutchFile file = DecidedFile(version);
  const std::string scratch = ScratchPath();
  auto got = fs_.Get(file, scratch);
  if (!got && got.error().IsNotFound()) return std::optional<RoundManifest>();
  if (!got) return Err(got.error());
  auto round = Decode(nutchfs::ReadFileToString(fs_.local_env(), scratch), file.ToString());
  Status removed = fs_.local_env().RemoveFile(scratch);
  (void)removed;  // a scratch copy; the round file is what matters
  if (round && *round && (*round)->version != version) {
    return Err(Status::Corruption(
        fmt::format("{}: holds round {}, not {}", file.ToString(), (*round)->version, version)));
  }
  return round;
}

Status RoundStore::Decide(const RoundManifest& round) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, View(RoundFileName(round.version)));
  return nutchfs::WriteFileAtomically(*at.env, at.path, round.Encode());
}

bool RoundStore::HasDecidedAt(uint64_t version, const std::string& machine) {
  auto at = fs_.LocateAt(DecidedFile(version), machine);
  return at && at->env->FileExists(at->path);
}

Status RoundStore::PublishTo(const RoundManifest& round, std::string_view machine) {
  const std::string scratch = ScratchPath();
  NUTCHFS_RETURN_IF_ERROR(nutchfs::WriteFileAtomically(fs_.local_env(), scratch, round.Encode()));
  auto put = fs_.PutAt(scratch, DecidedFile(round.version), machine);
  Status removed = fs_.local_env().RemoveFile(scratch);
  (void)removed;  // a scratch copy; the published file is what matters
  return put ? Status::OK() : put.error();
}

Status RoundStore::Install(uint64_t version) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, View(kCurrent));
  return WriteCurrent(at, version);
}

Status RoundStore::InstallAt(uint64_t version, const std::string& machine) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, fs_.LocateAt(config_.MetaFile(kCurrent), machine));
  return WriteCurrent(at, version);
}

Status RoundStore::WriteCurrent(const nutchfs::NutchFs::Located& at, uint64_t version) {
  return nutchfs::WriteFileAtomically(*at.env, at.path, RoundFileName(version) + "\n");
}

// Refuses when the db exists: CURRENT at every machine of the meta group, or any CURRENT
// naming a round after the first. CURRENT at some machines only, all naming ROUND-1, is
// a create cut short (killed, or a power loss, between its puts): it is done again.
Status RoundStore::CheckNoDb() {
  const nutchfs::GroupConfig* meta = config_.cluster.FindGroup(kMetaGroup);
  const std::string first = RoundFileName(1) + "\n";
  size_t present = 0;
  for (const std::string& machine : meta->machines) {
    NUTCHFS_ASSIGN_OR_RETURN(auto at, fs_.LocateAt(config_.MetaFile(kCurrent), machine));
    auto text = nutchfs::ReadFileToString(*at.env, at.path);
    if (!text && text.error().IsNotFound()) continue;
    if (!text) return text.error();
    if (++present == meta->machines.size() || *text != first) {
      return Status::InvalidArgument("a distributed webdb '" + config_.db() +
                                     "' already exists (" + at.path + ")");
    }
  }
  return Status::OK();
}

Status RoundStore::CreateEverywhere(const RoundManifest& round) {
  const std::string scratch = ScratchPath();
  Status s = nutchfs::WriteFileAtomically(fs_.local_env(), scratch, round.Encode());
  if (s.ok()) {
    auto put = fs_.Put(scratch, DecidedFile(round.version));
    if (!put) s = put.error();
  }
  if (s.ok())
    s = nutchfs::WriteFileAtomically(fs_.local_env(), scratch, RoundFileName(round.version) + "\n");
  if (s.ok()) {
    auto put = fs_.Put(scratch, config_.MetaFile(kCurrent));
    if (!put) s = put.error();
  }
  Status removed = fs_.local_env().RemoveFile(scratch);
  return s.ok() ? removed : s;
}

Status RoundStore::DropAt(uint64_t version, const std::string& machine) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, fs_.LocateAt(DecidedFile(version), machine));
  Status s = at.env->RemoveFile(at.path);
  return s.IsNotFound() ? Status::OK() : s;
}

Status RoundStore::RemoveRoundsExcept(const std::vector<uint64_t>& keep,
                                      const std::string& machine) {
  NUTCHFS_ASSIGN_OR_RETURN(auto current, fs_.LocateAt(config_.MetaFile(kCurrent), machine));
  const std::string dir = nutchfs::DirOf(current.path);
  NUTCHFS_ASSIGN_OR_RETURN(std::vector<std::string> names, current.env->GetChildren(dir));
  const uint64_t newest = keep.empty() ? 0 : *std::max_element(keep.begin(), keep.end());
  for (const std::string& name : names) {
    std::optional<uint64_t> version = ParseRoundFileName(name);
    if (version ? std::find(keep.begin(), keep.end(), *version) != keep.end()
                : ParseTemporaryRoundFileName(name).value_or(newest + 1) > newest) {
      continue;
    }
    Status s = current.env->RemoveFile(dir + "/" + name);
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  return Status::OK();
}

}  // namespace distwriter
