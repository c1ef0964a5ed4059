// The crash-test hook of the command-line tools: when the environment variable
// WEBDB_KILL_AT names a step ("stage 3", "publish", "commit send 2", "done", ...), the
// process kills itself with SIGKILL as that step begins, so tests can crash a writer
// exactly at every step boundary. A step matches when its name is WEBDB_KILL_AT or
// starts with it and a space ("stage 3" is "stage 3 linksByMD5"; "commit send 1" is not
// "commit send 10"). With WEBDB_KILL_WRITER=I as well, only distributed writer I kills
// itself (the others of a `distwriter launch` inherit the same environment). Unset
// (always, outside tests), the hook does nothing.
#ifndef TOOLS_KILL_HOOK_H_
#define TOOLS_KILL_HOOK_H_

#include <functional>
#include <string_view>

namespace tools {

// A StageHooks::before_step callback (webdb/db/writer.h) for distributed writer `writer`
// (-1: not a distributed writer); empty when WEBDB_KILL_AT is not set or WEBDB_KILL_WRITER
// names another writer.
std::function<void(std::string_view)> KillHookFromEnvironment(int writer = -1);

}  // namespace tools

#endif  // TOOLS_KILL_HOOK_H_
