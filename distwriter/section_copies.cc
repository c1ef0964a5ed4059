#include "distwriter/section_copies.h"

#include <fmt/format.h>

#include "webdb/db/manifest_table.h"

namespace distwriter {

namespace {

// The file at `machine` read end to end against its section entry f.
Status CheckBytesAt(nutchfs::NutchFs& fs, const DistConfig& config, int writer,
                    const webdb::TableFile& f, const std::string& machine) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at,
                           fs.LocateAt(config.WriterFile(writer, "section/" + f.name), machine));
  Status s = webdb::CheckTableBytes(
      *at.env, {at.path, f, fmt::format("{}'s section", config.Describe(writer))});
  return s.ok() ? s : s.WithContext("machine " + machine);
}

}  // namespace

Result<int> CopySection(nutchfs::NutchFs& fs, const DistConfig& config, int writer,
                        const webdb::Manifest& section, const std::string& from,
                        const std::string& to, bool check_bytes) {
  // Every layer of every table: its base and its runs.
  std::vector<const webdb::TableFile*> files;
  for (int t = 0; t < webdb::kNumTables; ++t) {
    files.push_back(&SectionFile(section, static_cast<webdb::TableId>(t)));
    for (const webdb::RunFile& run : section.runs_of(static_cast<webdb::TableId>(t))) {
      files.push_back(&run.file);
    }
  }
  int copied = 0;
  for (const webdb::TableFile* layer : files) {
    const webdb::TableFile& f = *layer;
    const nutchfs::NutchFile file = config.WriterFile(writer, "section/" + f.name);
    NUTCHFS_ASSIGN_OR_RETURN(auto there, fs.LocateAt(file, to));
    auto size = there.env->GetFileSize(there.path);
    if (size && *size == f.size) {
      if (!check_bytes) continue;
      Status same = CheckBytesAt(fs, config, writer, f, to);
      if (same.ok()) continue;
      if (!same.IsCorruption()) return Err(same);
    }
    if (!size && !size.error().IsNotFound()) return Err(size.error().WithContext("machine " + to));
    if (to == from) {
      return Err(Status::Corruption(fmt::format("{} at machine {} is missing or not of the {} "
                                                "bytes its section names",
                                                file.ToString(), to, f.size)));
    }
    if (check_bytes) NUTCHFS_RETURN_IF_ERROR(CheckBytesAt(fs, config, writer, f, from));
    NUTCHFS_ASSIGN_OR_RETURN(nutchfs::FileInfo info, fs.CopyAt(file, from, to));
    if (info.size != f.size) {
      return Err(Status::Corruption(file.ToString() + " at machine " + from + " has " +
                                    std::to_string(info.size) + " bytes where its manifest says " +
                                    std::to_string(f.size)));
    }
    ++copied;
  }
  return copied;
}

Result<std::vector<std::string>> ReplicateSection(nutchfs::NutchFs& fs, const DistConfig& config,
                                                  int writer, const webdb::Manifest& section) {
  std::vector<std::string> holders;
  for (const std::string& machine : config.GroupMachines(writer)) {
    if (machine == fs.own_machine()) {
      holders.push_back(machine);
      continue;
    }
    if (fs.IsUnreachable(machine)) continue;
    auto copied = CopySection(fs, config, writer, section, fs.own_machine(), machine);
    if (!copied && nutchfs::MeansUnreachable(copied.error())) {
      fs.MarkUnreachable(machine, copied.error());
      continue;
    }
    if (!copied) return Err(copied.error().WithContext(config.Describe(writer) + ": replica"));
    holders.push_back(machine);
  }
  return holders;
}

Result<std::string> ReadableHolder(nutchfs::NutchFs& fs, const DistConfig& config,
                                   const RoundManifest& round, int writer) {
  const std::vector<std::string> holders = round.HoldersOf(writer, config.writer_machines[writer]);
  std::string tried;
  for (const std::string& machine : holders) {
    tried += (tried.empty() ? "" : ", ") + machine;
    if (fs.IsUnreachable(machine)) continue;
    auto at = fs.LocateAt(config.WriterFile(writer, "section"), machine);
    if (at) return machine;
    if (!nutchfs::MeansUnreachable(at.error())) return Err(at.error());
    fs.MarkUnreachable(machine, at.error());
  }
  return Err(Status::IOError(fmt::format("{}: no holder of its section in round {} can be "
                                         "reached (holders: {})",
                                         config.Describe(writer), round.version, tried)));
}

}  // namespace distwriter
