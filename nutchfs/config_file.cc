#include "nutchfs/config_file.h"

#include <fstream>
#include <sstream>

#include "nutchfs/strings.h"

namespace nutchfs {
namespace {

// Blanks and line ends.
std::string_view TrimLine(std::string_view s) { return Trim(s, " \t\r\n"); }

// The key, value and line of every entry and the line of every section, in order. A
// '#' starts a comment anywhere on a line; keys and values are trimmed.
Status Scan(const ConfigFile &file, std::string_view text, std::vector<ConfigEntry> *entries,
            std::vector<ConfigSection> *sections) {
  std::string section;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    line = TrimLine(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']' || TrimLine(line.substr(1, line.size() - 2)).empty()) {
        return file.ErrorAt(
            line_no, "malformed section header '" + std::string(line) + "'; expected [NAME]");
      }
      section = std::string(TrimLine(line.substr(1, line.size() - 2)));
      sections->push_back({section, line_no});
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || TrimLine(line.substr(0, eq)).empty()) {
      return file.ErrorAt(
          line_no, "expected 'key = value' or '[section]', found '" + std::string(line) + "'");
    }
    std::string key(TrimLine(line.substr(0, eq)));
    entries->push_back({section.empty() ? key : section + "." + key, section,
                        std::string(TrimLine(line.substr(eq + 1))), line_no});
  }
  return Status::OK();
}

}  // namespace

Result<ConfigFile> ConfigFile::Read(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Err(Status::NotFound("config file " + path + ": cannot open"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Err(Status::IOError("config file " + path + ": read failed"));
  return Parse(text.str(), path);
}

Result<ConfigFile> ConfigFile::Parse(std::string_view text, std::string path) {
  // Editors on some systems start a UTF-8 file with a byte-order mark.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  ConfigFile file;
  file.path_ = std::move(path);
  std::vector<ConfigEntry> scanned;
  NUTCHFS_RETURN_IF_ERROR(Scan(file, text, &scanned, &file.sections_));
  file.entries_ = std::move(scanned);
  return file;
}

const ConfigEntry *ConfigFile::Find(std::string_view key) const {
  for (const ConfigEntry &e : entries_) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

Status ConfigFile::ErrorAt(int line, std::string_view reason) const {
  std::string where = line > 0 ? path_ + ":" + std::to_string(line) : path_;
  return Status::InvalidArgument(where + ": " + std::string(reason));
}

}  // namespace nutchfs
