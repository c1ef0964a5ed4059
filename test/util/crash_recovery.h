// Helpers for tests that cut power or inject I/O errors and then check what is left:
// what a reboot changes (locks taken before it), the files below a directory byte for
// byte, webdb::VerifyDb's findings, and leftover temporary files.
//
// Free functions over any Env; they fail the running Catch2 test only where noted.
#ifndef TEST_UTIL_CRASH_RECOVERY_H_
#define TEST_UTIL_CRASH_RECOVERY_H_

#include <map>
#include <string>
#include <vector>

#include "nutchfs/env.h"

namespace testutil {

// Path (relative to the directory) -> contents of every file below a directory.
using FileMap = std::map<std::string, std::string>;

// What a reboot does to the files below root: every lock file (a "LOCK", or any file in
// a ".locks" directory) now names a boot before this one, so the stale-lock rule breaks
// it. (After a simulated power loss the lock's process — this test — still runs.)
// Requires that every lock file below root is readable.
void Reboot(nutchfs::Env& env, const std::string& root);

// Every file below dir; `skip` names files (base names) left out. Requires dir to list.
FileMap FilesBelow(nutchfs::Env& env, const std::string& dir,
                   const std::vector<std::string>& skip = {});
// Whether two contents of the db file `name` say the same: equal bytes, or two manifests
// (a single-machine MANIFEST-*, a distributed db's ROUND-*) that differ at most in when
// they were made.
bool SameDbFile(const std::string& name, const std::string& a, const std::string& b);

// Empty when equal (SameDbFile); otherwise the first difference (a missing, extra or
// different file).
std::string DiffFiles(const FileMap& expected, const FileMap& actual);

// Empty when webdb::VerifyDb finds nothing in the db at dir; otherwise the findings (or
// why it could not run). Its sorts spill into scratch_dir of the same Env.
std::string VerifyFindings(nutchfs::Env& env, const std::string& dir,
                           const std::string& scratch_dir);

// Names below dir that begin with '.' (temporary files of publication, write-temp-rename
// and lock removal) or contain ".tmp", as paths relative to dir.
std::vector<std::string> TemporaryFilesBelow(nutchfs::Env& env, const std::string& dir);

}  // namespace testutil

#endif  // TEST_UTIL_CRASH_RECOVERY_H_
