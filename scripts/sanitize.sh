#!/usr/bin/env bash
# Builds everything (libraries, tools, tests) with sanitizers and runs the tests:
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer), into
#         build-asan/, the whole ctest suite;
#   tsan  ThreadSanitizer, into build-tsan/, the tests of the code that runs threads: the
#         call file parse thread (webdb apply, distwriter run), concurrent table readers,
#         a sort buffer read while it sorts, a stage's key ranges merged at once (and the
#         sorters they fill), tables synced while the next stage runs, NutchFs and its
#         Envs used from several threads, the lock race.
# Any report fails the test that triggered it (reports are fatal, the tools the tests
# run are instrumented too). Prints the wall time. See docs/RELIABILITY.md, "Sanitizers".
#
# Usage: scripts/sanitize.sh [asan|tsan] [CTEST ARGS...]   (run as root on Debian 12)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=asan
if [ "${1:-}" = asan ] || [ "${1:-}" = tsan ]; then
  mode=$1
  shift
fi
scripts/setup.sh --clang --install-only

case $mode in
  asan)
    sanitize=address,undefined
    select=()
    asan=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
    export ASAN_OPTIONS=${ASAN_OPTIONS:-$asan}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
    ;;
  tsan)
    sanitize=thread
    # By name: every nutchfs test (Envs, locks, NutchFs from several threads), the call
    # file tests and the determinism test (with and without threads), concurrent table
    # iterators, a sort buffer read while it sorts, key ranges merged at once and the
    # sorters they fill, and the tests that run webdb apply or a distributed round (the
    # parse thread in a tool), and the tables synced on threads of their own.
    webdb='^webdb:(.*(FILE:LINE|line|call|parse thread|threads|key range|concurrent|webdb apply|another thread sorts)|blank lines|an empty file|deferred syncs)'
    select=(-R "^nutchfs:|$webdb|^tools:.*apply|^distwriter:.*killed at each step")
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
    ;;
esac

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
cmake -S . -B "build-$mode" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWEBDB_SANITIZE=$sanitize "${launcher[@]}" >/dev/null
cmake --build "build-$mode" -j "$(nproc)"
built=$(date +%s)
status=0
(cd "build-$mode" && ctest --output-on-failure --timeout 1800 -j1 "${select[@]}" "$@") || status=$?
end=$(date +%s)
echo "sanitize.sh $mode: build $((built - start)) s, tests $((end - built)) s, exit $status"
exit $status
