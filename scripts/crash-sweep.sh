#!/usr/bin/env bash
# Crash sweeps at scale (docs/RELIABILITY.md, "Crash sweeps"): kill -9 of `webdb apply`
# on a large session at random moments, and of one writer, two writers and the launcher
# of a k = 4 round; after each, restart and compare with the uninterrupted result. The
# Catch2 cases tagged [sweep][crash], which ctest never runs.
#
#   scripts/crash-sweep.sh [PAGES] [KILLS] [SEED]     (defaults: 20000 10 1, a quick check)
#   scripts/crash-sweep.sh 1000000 200                 (the full sweep; hours, ~10 GB free)
#
# env: BUILD (default build-sweep, a build directory of its own, configured with
# -DWEBDB_BUILD_BENCH=ON for the workload generator), SWEEP_DIR (scratch space, default $TMPDIR or /tmp), SWEEP_PAIR_KILLS and
# SWEEP_LAUNCH_KILLS (default KILLS), ONLY=webdb|distwriter (one of the two sweeps),
# SWEEP_REPLICAS (default 1: the distributed sweep's `replicas`; 2 kills writers holding
# replicated sections, and compares every replica with the uninterrupted round's).
# ONLY=io runs instead the I/O-error sweep of a distributed round (ENOSPC, EIO, EDQUOT
# at every write, sync, rename and directory call of writer 1's disk; [sweep][io]).
set -euo pipefail
cd "$(dirname "$0")/.."

PAGES=${1:-20000}
KILLS=${2:-10}
SEED=${3:-1}
BUILD=${BUILD:-build-sweep}
ONLY=${ONLY:-}

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEBDB_BUILD_BENCH=ON \
  "${launcher[@]}" > /dev/null
cmake --build "$BUILD" -j2 --target webdb_bench webdb_tests distwriter_tests webdb_killable \
  distwriter_killable > /dev/null

export SWEEP_PAGES=$PAGES SWEEP_KILLS=$KILLS SWEEP_SEED=$SEED
export SWEEP_GEN=$PWD/$BUILD/bench/webdb_bench
export TMPDIR=${SWEEP_DIR:-${TMPDIR:-/tmp}}

status=0
if [ "$ONLY" = io ]; then
  start=$(date +%s)
  "$BUILD/test/distwriter_tests" "[sweep][io]" || status=1
  echo "== io: $(( $(date +%s) - start )) s"
  exit $status
fi
for module in webdb distwriter; do
  [ -z "$ONLY" ] || [ "$ONLY" = "$module" ] || continue
  echo "== $module: $PAGES pages, $KILLS kills, seed $SEED"
  start=$(date +%s)
  "$BUILD/test/${module}_tests" "[sweep][crash]" || status=1
  echo "== $module: $(( $(date +%s) - start )) s"
done
exit $status
