#include "distwriter/init_local.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "distwriter/dist_config.h"
#include "nutchfs/nutchfile.h"

namespace distwriter {
namespace {

namespace fs = std::filesystem;

// What is at path, for the refusal message; empty if nothing (not even a dangling link).
std::string WhatIsAt(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  switch (st.type()) {
    case fs::file_type::not_found: return "";
    case fs::file_type::regular: return "a file";
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::directory: return "a directory";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::block:
    case fs::file_type::character: return "a device";
    case fs::file_type::socket: return "a socket";
    default: return ec ? "something that cannot be examined (" + ec.message() + ")" : "a file";
  }
}

}  // namespace

std::string LocalConfigText(const InitLocalOptions& o) {
  std::string text = fmt::format(
      "# {} writer processes on this host, each with its own root directory.\n"
      "# Made by: distwriter init-local --writers {} --root {}\n"
      "db = {}\nwriters = {}\ntimeout_ms = 600000\n",
      o.writers, o.writers, o.root, o.db, o.writers);
  for (int i = 0; i < o.writers; ++i) {
    text += fmt::format("\n[machine.m{}]\nlocation = {}/m{}\n\n[writer.{}]\nmachine = m{}\n", i,
                        o.root, i, i, i);
  }
  return text;
}

namespace {

// InvalidArgument unless every command can load the config of o: the limits are the
// loader's, and the loader itself has the last word on the text.
Status CheckLoadable(const InitLocalOptions& o) {
  if (o.writers < 1 || o.writers > kMaxWriters) {
    return Status::InvalidArgument(fmt::format("--writers {}: not in 1..{}, the writers every "
                                               "command accepts",
                                               o.writers, kMaxWriters));
  }
  if (Status s = nutchfs::ValidateComponent("db name", o.db); !s.ok()) {
    return Status::InvalidArgument("--db " + o.db + ": " + s.message() +
                                   " (a plain name: the db's directory in each root)");
  }
  // A config line ends at a line end and a comment starts at '#': a root holding either
  // would be read back as another directory.
  if (o.root.find_first_of("#\r\n") != std::string::npos) {
    return Status::InvalidArgument("--root " + o.root +
                                   ": a config cannot hold a path with '#' or a line end");
  }
  auto loaded = DistConfig::Parse(LocalConfigText(o), o.out);
  if (!loaded) return loaded.error();
  if (loaded->cluster.db != o.db) {
    return Status::InvalidArgument("--db '" + o.db + "': a config reads it back as '" +
                                   loaded->cluster.db + "'");
  }
  return Status::OK();
}

}  // namespace

Status InitLocal(nutchfs::Env& env, InitLocalOptions o) {
  o.root = fs::absolute(o.root).lexically_normal().string();
  NUTCHFS_RETURN_IF_ERROR(CheckLoadable(o));
  const std::string there = WhatIsAt(o.out);
  if (there == "a directory") {
    return Status::InvalidArgument(o.out + " is a directory; give the config file's path");
  }
  if (!there.empty() && !o.force) {
    return Status::InvalidArgument(o.out + " exists (" + there +
                                   "); not replaced without --force");
  }
  // Renaming over a symlink, a FIFO or a device would replace the node itself (/dev/null
  // would become a file), which no one asking to overwrite a config means.
  if (!there.empty() && there != "a file") {
    return Status::InvalidArgument(o.out + " is " + there +
                                   "; --force replaces a regular file only");
  }
  NUTCHFS_RETURN_IF_ERROR(env.CreateDirs(o.root));
  return nutchfs::WriteFileAtomically(env, o.out, LocalConfigText(o));
}

}  // namespace distwriter
