#include "nutchfs/nutchfile.h"

#include <cstdio>

namespace nutchfs {
namespace {

// Shows a component in an error message without printing raw control bytes.
std::string Printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 80)) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > 80) out += "...";
  return "'" + out + "'";
}

}  // namespace

Status ValidateComponent(std::string_view what, std::string_view component) {
  const std::string shown = std::string(what) + " " + Printable(component);
  if (component.empty()) return Status::InvalidArgument(std::string(what) + " is empty");
  if (component.size() > kMaxComponentBytes) {
    return Status::InvalidArgument(shown + " is " + std::to_string(component.size()) +
                                   " bytes long; the limit is " +
                                   std::to_string(kMaxComponentBytes));
  }
  if (component == "." || component == "..") {
    return Status::InvalidArgument(shown + " would leave its directory");
  }
  if (component.front() == '.') {
    return Status::InvalidArgument(shown +
                                   " begins with '.', reserved for temporary and lock files");
  }
  for (unsigned char c : component) {
    if (c == '/') return Status::InvalidArgument(shown + " contains '/'");
    if (c < 0x20 || c == 0x7f) {
      return Status::InvalidArgument(shown + " contains a NUL or control character");
    }
  }
  return Status::OK();
}

Status ValidateName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("file name is empty");
  if (name.front() == '/') {
    return Status::InvalidArgument("file name " + Printable(name) +
                                   " is absolute; names are relative to the share group");
  }
  size_t start = 0;
  while (true) {
    size_t slash = name.find('/', start);
    std::string_view part = name.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    Status s = ValidateComponent("component", part);
    if (!s.ok()) {
      return Status::InvalidArgument("file name " + Printable(name) + ": " + s.message());
    }
    if (slash == std::string_view::npos) return Status::OK();
    start = slash + 1;
  }
}

Result<NutchFile> NutchFile::Make(std::string_view db, std::string_view group,
                                  std::string_view name) {
  NutchFile file{std::string(db), std::string(group), std::string(name)};
  NUTCHFS_RETURN_IF_ERROR(file.Validate());
  return file;
}

Status NutchFile::Validate() const {
  NUTCHFS_RETURN_IF_ERROR(ValidateComponent("db name", db));
  NUTCHFS_RETURN_IF_ERROR(ValidateComponent("share group name", group));
  return ValidateName(name);
}

std::string NutchFile::RelativePath() const { return db + "/" + group + "/" + name; }

std::string_view NutchFile::BaseName() const {
  std::string_view n = name;
  size_t slash = n.rfind('/');
  return slash == std::string_view::npos ? n : n.substr(slash + 1);
}

std::string_view NutchFile::DirName() const {
  std::string_view n = name;
  size_t slash = n.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : n.substr(0, slash);
}

}  // namespace nutchfs
