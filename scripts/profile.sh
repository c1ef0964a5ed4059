#!/usr/bin/env bash
# Profile-guided optimization, the training half (docs/PERFORMANCE.md, "Profile-guided
# optimization"): builds the tools instrumented into build-profile/, runs them on a
# synthetic crawl, and leaves the profiles in build-profile/data for a build configured
# with -DWEBDB_PROFILE_USE=<that directory>. `scripts/setup.sh --pgo` does both.
#
# The training: `webdb apply` of a 20,000-page load, of a round touching 20% of the
# pages and of one touching 0.1% of them at a budget small enough to spill; then the load
# and the 20% round through `distwriter launch` with two local writers.
#
#   scripts/profile.sh
set -euo pipefail
cd "$(dirname "$0")/.."

build=$PWD/build-profile
data=$build/data
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEBDB_BUILD_TESTS=OFF \
  -DWEBDB_BUILD_BENCH=ON -DWEBDB_PROFILE_USE= -DWEBDB_PROFILE_GENERATE="$data" > /dev/null
cmake --build "$build" -j "$(nproc)" --target webdb_tool distwriter_tool webdb_bench > /dev/null

rm -rf "$data"
work=$(mktemp -d /tmp/webdb-profile.XXXXXX)
trap 'rm -rf "$work"' EXIT
webdb=$build/tools/webdb
distwriter=$build/tools/distwriter
gen() { "$build/bench/webdb_bench" --pages 20000 --rounds 1 --fraction "$1" --emit-phase "$2"; }

"$webdb" create "$work/db"
gen 0.2 0 | "$webdb" apply "$work/db" - --quiet
gen 0.2 1 | "$webdb" apply "$work/db" - --quiet
gen 0.001 1 | "$webdb" apply "$work/db" - --memory 4M --quiet

"$distwriter" init-local --writers 2 --root "$work/k2" --out "$work/k2.conf" > /dev/null
"$distwriter" create --config "$work/k2.conf"
gen 0.2 0 | "$distwriter" launch --config "$work/k2.conf" --quiet - > /dev/null
gen 0.2 1 | "$distwriter" launch --config "$work/k2.conf" --quiet - > /dev/null

[ -n "$(find "$data" -name '*.gcda' -print -quit)" ] || { echo "no profiles in $data" >&2; exit 1; }
