// NutchFile: the name of a file in the shared NutchFS namespace, and the rules
// that keep every name inside its root.
//
// A NutchFile is (db, group, name): db is the database instance, group the
// share group that decides which machines hold the file, name a relative
// slash-separated path. On a machine the file lives at
// <root>/<db>/<group>/<name>. Components beginning with '.' are reserved for
// NutchFS's own temporary and lock files, so every valid name is visible. Plain
// values; thread-safe like std::string.
#ifndef NUTCHFS_NUTCHFILE_H_
#define NUTCHFS_NUTCHFILE_H_

#include <string>
#include <string_view>

#include "nutchfs/status.h"

namespace nutchfs {

// Longest path component accepted (the usual NAME_MAX).
constexpr size_t kMaxComponentBytes = 255;

// OK when `component` can be one path component: non-empty, at most 255 bytes,
// no '/', no NUL or other control character (bytes < 0x20 and 0x7f), not
// beginning with '.' (which also excludes "." and ".."). `what` names the thing
// in the error ("db name").
Status ValidateComponent(std::string_view what, std::string_view component);

// OK when `name` is a relative slash-separated path whose every component is
// valid: no leading '/', no empty component (no "//", no trailing '/'), no "."
// or "..".
Status ValidateName(std::string_view name);

struct NutchFile {
  std::string db;
  std::string group;
  std::string name;

  // Builds a NutchFile after validating all three parts.
  static Result<NutchFile> Make(std::string_view db, std::string_view group, std::string_view name);

  // OK when db and group are valid components and name a valid name.
  Status Validate() const;
  // "<db>/<group>/<name>": the path below a machine's root.
  std::string RelativePath() const;
  // The last component of name.
  std::string_view BaseName() const;
  // name without its last component ("" at the top of the group).
  std::string_view DirName() const;
  // "db/group/name" quoted for messages.
  std::string ToString() const { return "'" + RelativePath() + "'"; }

  friend bool operator==(const NutchFile &, const NutchFile &) = default;
};

}  // namespace nutchfs

#endif  // NUTCHFS_NUTCHFILE_H_
