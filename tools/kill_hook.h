// The crash-test hook of the command-line tools: when the environment variable
// WEBDB_KILL_AT names a step ("stage 3", "publish", "commit", ...), the process kills
// itself with SIGKILL as that step begins, so tests can crash a writer exactly at
// every stage boundary. Unset (always, outside tests), the hook does nothing.
#ifndef TOOLS_KILL_HOOK_H_
#define TOOLS_KILL_HOOK_H_

#include <functional>
#include <string_view>

namespace tools {

// A StageHooks::before_step callback (webdb/writer.h); empty when WEBDB_KILL_AT is not set.
std::function<void(std::string_view)> KillHookFromEnvironment();

}  // namespace tools

#endif  // TOOLS_KILL_HOOK_H_
