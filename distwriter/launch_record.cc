#include "distwriter/launch_record.h"

#include <fmt/format.h>

#include <random>
#include <sstream>

#include "webdb/util/crc32c.h"

namespace distwriter {
namespace {

constexpr std::string_view kMagicLine = "webdb-launch 1\n";
constexpr char kName[] = "LAUNCH";

Status Bad(const std::string& path, int line, std::string_view why) {
  return Status::Corruption(fmt::format("{}:{}: {}", path, line, why));
}

bool IsHex128(const std::string& s) {
  return s.size() == 32 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

std::string LaunchRecord::Encode() const {
  std::string out(kMagicLine);
  out += fmt::format("stream {}\nsession {}\n", stream, session);
  out += fmt::format("crc {:08x}\n", webdb::crc32c::Value(out));
  return out;
}

Result<LaunchRecord> LaunchRecord::Decode(std::string_view text, const std::string& path) {
  const size_t crc_pos = text.rfind("crc ");
  if (!text.starts_with(kMagicLine) || crc_pos == std::string_view::npos || !text.ends_with('\n')) {
    return Err(Bad(path, 1, "not a complete launch record"));
  }
  uint32_t stored = 0;
  if (std::sscanf(std::string(text.substr(crc_pos + 4)).c_str(), "%x", &stored) != 1 ||
      stored != webdb::crc32c::Value(text.substr(0, crc_pos))) {
    return Err(Bad(path, 0, "launch record checksum mismatch"));
  }
  LaunchRecord r;
  std::istringstream in{
      std::string(text.substr(kMagicLine.size(), crc_pos - kMagicLine.size()))};
  std::string line;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream fields(line);
    std::string word, value;
    fields >> word >> value;
    std::string* field = word == "stream" ? &r.stream : word == "session" ? &r.session : nullptr;
    if (field == nullptr || !field->empty() || !IsHex128(value) || !(fields >> std::ws).eof()) {
      return Err(Bad(path, line_no, "malformed line '" + line + "'"));
    }
    *field = value;
  }
  if (r.stream.empty() || r.session.empty()) {
    return Err(Bad(path, line_no, "launch record lacks its stream or session"));
  }
  return r;
}

Result<std::string> NewSession() {
  std::random_device source;  // the system's random source (getrandom)
  std::string hex;
  for (int i = 0; i < 4; ++i) hex += fmt::format("{:08x}", static_cast<uint32_t>(source()));
  return hex;
}

Result<std::optional<LaunchRecord>> ReadLaunchRecord(nutchfs::NutchFs& fs,
                                                     const DistConfig& config) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, fs.Locate(config.MetaFile(kName)));
  auto text = nutchfs::ReadFileToString(*at.env, at.path);
  if (!text && text.error().IsNotFound()) return std::optional<LaunchRecord>();
  if (!text) return Err(text.error());
  auto record = LaunchRecord::Decode(*text, at.path);
  if (!record) {
    return Err(record.error().WithContext(
        "the record of an unfinished launch cannot be read (removing it makes the next "
        "launch a new session)"));
  }
  return std::optional<LaunchRecord>(std::move(*record));
}

Status WriteLaunchRecord(nutchfs::NutchFs& fs, const DistConfig& config,
                         const LaunchRecord& record) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, fs.Locate(config.MetaFile(kName)));
  return nutchfs::WriteFileAtomically(*at.env, at.path, record.Encode());
}

Status RemoveLaunchRecord(nutchfs::NutchFs& fs, const DistConfig& config) {
  NUTCHFS_ASSIGN_OR_RETURN(auto at, fs.Locate(config.MetaFile(kName)));
  Status s = at.env->RemoveFile(at.path);
  return s.IsNotFound() ? Status::OK() : s;
}

}  // namespace distwriter
