#include "test/util/crash_recovery.h"

#include <catch2/catch.hpp>

#include "distwriter/round_manifest.h"
#include "nutchfs/lock_owner.h"
#include "webdb/db/manifest.h"
#include "webdb/inspect/verify.h"

namespace testutil {
namespace {

// Calls fn(relative path, full path) for every file below dir (a child that lists is a
// directory: Env has no file type query).
template <typename Fn>
void ForEachFile(nutchfs::Env& env, const std::string& dir, const std::string& prefix, Fn&& fn) {
  auto names = env.GetChildren(dir);
  INFO("listing " << dir);
  REQUIRE(names);
  for (const std::string& name : *names) {
    const std::string path = dir == "/" ? "/" + name : dir + "/" + name;
    if (env.GetChildren(path)) {
      ForEachFile(env, path, prefix + name + "/", fn);
    } else {
      fn(prefix + name, path);
    }
  }
}

std::string BaseName(const std::string& rel) { return rel.substr(rel.rfind('/') + 1); }

}  // namespace

void Reboot(nutchfs::Env& env, const std::string& root) {
  ForEachFile(env, root, "", [&](const std::string& rel, const std::string& path) {
    const bool in_locks = rel.find(".locks/") != std::string::npos;
    if (BaseName(rel) != "LOCK" && !in_locks) return;
    auto text = nutchfs::ReadFileToString(env, path);
    REQUIRE(text);
    auto owner = nutchfs::DecodeLockOwner(*text, path);
    INFO(path << ": " << (owner ? "" : owner.error().ToString()));
    REQUIRE(owner);
    owner->boot_id += "-before-reboot";
    auto file = env.NewWritableFile(path);
    REQUIRE(file);
    REQUIRE((*file)->Append(nutchfs::EncodeLockOwner(*owner)).ok());
    REQUIRE((*file)->Sync().ok());
    REQUIRE((*file)->Close().ok());
  });
}

FileMap FilesBelow(nutchfs::Env& env, const std::string& dir, const std::vector<std::string>& skip) {
  FileMap files;
  ForEachFile(env, dir, "", [&](const std::string& rel, const std::string& path) {
    if (std::find(skip.begin(), skip.end(), BaseName(rel)) != skip.end()) return;
    // Reader pins (webdb/db/versions.h) belong to whoever was reading, not to the db.
    if (rel.starts_with("readers/")) return;
    auto data = nutchfs::ReadFileToString(env, path);
    INFO("reading " << path);
    REQUIRE(data);
    files[rel] = std::move(*data);
  });
  return files;
}

namespace {

// Equal once decoded as T, with their times set aside.
template <typename T>
bool SameButTime(const std::string& name, const std::string& a, const std::string& b) {
  auto ma = T::Decode(a, name);
  auto mb = T::Decode(b, name);
  if (!ma || !mb) return false;
  ma->time_ms = mb->time_ms = 0;
  return *ma == *mb;
}

}  // namespace

bool SameDbFile(const std::string& name, const std::string& a, const std::string& b) {
  if (a == b) return true;
  const std::string base = BaseName(name);
  if (base.starts_with("MANIFEST-")) return SameButTime<webdb::Manifest>(name, a, b);
  if (base.starts_with("ROUND-")) return SameButTime<distwriter::RoundManifest>(name, a, b);
  return false;
}

std::string DiffFiles(const FileMap& expected, const FileMap& actual) {
  for (const auto& [name, data] : expected) {
    auto it = actual.find(name);
    if (it == actual.end()) return name + " is missing";
    if (!SameDbFile(name, data, it->second)) {
      return name + " differs (" + std::to_string(data.size()) + " bytes expected, " +
             std::to_string(it->second.size()) + " found)";
    }
  }
  for (const auto& [name, data] : actual) {
    if (expected.count(name) == 0) return name + " is extra (" + std::to_string(data.size()) + " bytes)";
  }
  return "";
}

std::string VerifyFindings(nutchfs::Env& env, const std::string& dir,
                           const std::string& scratch_dir) {
  std::string findings;
  webdb::VerifyOptions options;
  options.memory_budget = 256 << 10;
  options.tmp_env = &env;
  options.tmp_dir = scratch_dir;
  options.on_finding = [&](const webdb::Finding& f) { findings += f.ToString() + "; "; };
  auto summary = webdb::VerifyDb(env, dir, options);
  if (!summary) return "verify failed: " + summary.error().ToString();
  if (!findings.empty()) return "verify found: " + findings;
  return "";
}

std::vector<std::string> TemporaryFilesBelow(nutchfs::Env& env, const std::string& dir) {
  std::vector<std::string> found;
  ForEachFile(env, dir, "", [&](const std::string& rel, const std::string&) {
    const std::string base = BaseName(rel);
    if (base.starts_with(".") || base.find(".tmp") != std::string::npos) found.push_back(rel);
  });
  return found;
}

}  // namespace testutil
