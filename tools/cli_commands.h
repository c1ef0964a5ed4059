// The `webdb` commands (docs/CLI.md): create, apply, dump, stats, page, pages, links,
// run from a parsed Invocation. Output goes to a caller-given stream in large buffered
// writes; progress reports go to stderr unless --quiet.
//
// Exit codes (spec/interfaces.md section 3): a command's own result is kExitOk or, for
// a lookup that found nothing, kExitNotFound; a failed Status maps through ExitCodeFor.
// Functions are not thread-safe with respect to the streams they write.
#ifndef TOOLS_CLI_COMMANDS_H_
#define TOOLS_CLI_COMMANDS_H_

#include <cstdio>
#include <memory>

#include "nutchfs/env.h"
#include "tools/cli_args.h"
#include "webdb/db/reader.h"
#include "webdb/db/versions.h"

namespace tools {

constexpr int kExitOk = 0;
constexpr int kExitNotFound = 1;
constexpr int kExitUsage = 2;
constexpr int kExitBadInput = 3;
constexpr int kExitFailure = 4;

// Runs inv.command, writing results to out. Returns kExitOk or kExitNotFound.
// REQUIRES: inv came from ParseCommandLine and is not a --help invocation.
Result<int> RunCommand(nutchfs::Env& env, const Invocation& inv, std::FILE* out);

// kExitBadInput for InvalidArgument (bad call files, an existing db on create),
// kExitFailure for everything else (I/O, corruption, a busy db, a missing db).
int ExitCodeFor(const Status& status);

// The db a read command names: the distributed db of inv.config, else the
// single-machine db at inv.db; its kept version inv.version when given.
Result<std::unique_ptr<webdb::Reader>> OpenReader(nutchfs::Env& env, const Invocation& inv);
// The same at kept version `version` (the current one when nullopt).
Result<std::unique_ptr<webdb::Reader>> OpenReaderAt(nutchfs::Env& env, const Invocation& inv,
                                                    std::optional<uint64_t> version);
// The versions (a distributed db: rounds) that db keeps, newest first.
Result<webdb::VersionList> ListKeptVersions(nutchfs::Env& env, const Invocation& inv);

// Writes text to out and flushes; an error names standard output.
Status WriteToStream(std::FILE* out, std::string_view text);

// The distwriter binary that `--config` forms start on the writers' machines when the
// config names none (`distwriter = PATH`): the one found through PATH there.
inline constexpr char kDistwriterCommand[] = "distwriter";

// s, and when it is Busy (a writer holds db's LOCK) and `webdb unlock` could remove that
// lock, how to break a lock left behind.
Status WithUnlockHint(nutchfs::Env& env, const Status& s, const std::string& db);

}  // namespace tools

#endif  // TOOLS_CLI_COMMANDS_H_
