#include "distwriter/init_local.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

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

Status InitLocal(nutchfs::Env& env, InitLocalOptions o) {
  o.root = fs::absolute(o.root).lexically_normal().string();
  const std::string there = WhatIsAt(o.out);
  if (there == "a directory") {
    return Status::InvalidArgument(o.out + " is a directory; give the config file's path");
  }
  if (!there.empty() && !o.force) {
    return Status::InvalidArgument(o.out + " exists (" + there +
                                   "); not replaced without --force");
  }
  NUTCHFS_RETURN_IF_ERROR(env.CreateDirs(o.root));
  return nutchfs::WriteFileAtomically(env, o.out, LocalConfigText(o));
}

}  // namespace distwriter
