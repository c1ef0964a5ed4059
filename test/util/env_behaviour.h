// The behaviour every nutchfs::Env must show (env.h), as one Catch2 check run against any
// backend: local, in-memory, SFTP, fault-injecting with no fault armed. Each backend's
// test calls it with a fresh, existing, empty directory of that Env.
#ifndef TEST_UTIL_ENV_BEHAVIOUR_H_
#define TEST_UTIL_ENV_BEHAVIOUR_H_

#include <string>

#include "nutchfs/env.h"

namespace testutil {

// REQUIRES: base exists in env and is empty. Leaves files below base.
void CheckEnvBehaviour(nutchfs::Env& env, const std::string& base);

}  // namespace testutil

#endif  // TEST_UTIL_ENV_BEHAVIOUR_H_
