// ConfigFile: a config file of "key = value" lines, "[section]" headers and '#'
// comments (the syntax Boost.Program_options' config files have) read into ordered
// entries that remember their line numbers, so every module reading the shared cluster
// config can report errors as FILE:LINE; a malformed line is rejected with its line.
// Keys and values are trimmed of blanks. A value cannot contain '#': the rest of a line
// after '#' is a comment. Keys inside "[sec]" are named "sec.key". Immutable after
// Read/Parse; safe to share between threads.
#ifndef NUTCHFS_CONFIG_FILE_H_
#define NUTCHFS_CONFIG_FILE_H_

#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/status.h"

namespace nutchfs {

struct ConfigEntry {
  std::string key;      // "section.key", or "key" before the first section
  std::string section;  // "section", or "" before the first section
  std::string value;
  int line = 0;  // 1-based
};

struct ConfigSection {
  std::string name;  // between the brackets, trimmed
  int line = 0;      // of this header; a name may be declared more than once
};

class ConfigFile {
 public:
  // Reads and parses the file at path; NotFound if it does not exist.
  static Result<ConfigFile> Read(const std::string &path);
  // Parses text; path is used only in messages.
  static Result<ConfigFile> Parse(std::string_view text, std::string path);

  const std::string &path() const { return path_; }
  // Every entry, in file order (duplicates kept).
  const std::vector<ConfigEntry> &entries() const { return entries_; }
  // Every section header, in file order (repeated headers kept).
  const std::vector<ConfigSection> &sections() const { return sections_; }
  // The first entry named key, or nullptr.
  const ConfigEntry *Find(std::string_view key) const;

  // InvalidArgument "<path>:<line>: <reason>" ("<path>: <reason>" when line is
  // 0).
  Status ErrorAt(int line, std::string_view reason) const;

 private:
  std::string path_;
  std::vector<ConfigEntry> entries_;
  std::vector<ConfigSection> sections_;
};

}  // namespace nutchfs

#endif  // NUTCHFS_CONFIG_FILE_H_
