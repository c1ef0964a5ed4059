#!/usr/bin/env bash
# read_bench.sh: what layered tables cost readers (docs/PERFORMANCE.md, "Rounds that write
# runs"): the same rows read from a db whose tables have the most runs the layering policy
# allows (kMaxRuns, webdb/db/layer_plan.h) and from that db compacted into bases.
#
#   bench/read_bench.sh [PAGES] [LOOKUPS]   at PAGES pages (default 100000; 1000000 is the
#                                           issue's size), LOOKUPS page lookups (100000)
#
# The db is the issue-2 workload's load (bench/webdb_bench --emit-phase 0, links
# included), then rounds of shrinking size (4%, 2%, 1%, ... of the pages): a round whose
# run is smaller than the newest run does not absorb it (docs/DESIGN.md, "Writing a
# round"), so each adds a run, until every table has kMaxRuns or the fractions run out.
# `runs` is then a copy of it; `flat` the same copy after `webdb compact` (the same rows,
# no runs). On each, RUNS (default 3) times:
#   lookup_X    bench/read_bench: LOOKUPS Reader::GetPage calls on sampled urls in one
#               process (in-process wall time of the lookups alone: CPU and I/O are "0")
#   dump_X      webdb dump of each of the four tables, one process each
#   generate_X  webdb generate --top 1 --now 0 --dry-run: a scan of pagesByURL, none due
# and prints runs / flat for each (target: <= 1.3, issue 39). Every timed command is
# followed by `sync` (bench/bench_lib.sh). Timings on a shared machine are not final.
# env: BUILD (default build-pgo, bench/build.sh), WORK (default /tmp/read_bench), MEMORY
# (256M), RUNS (3).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/build.sh"
bench_build tools/webdb bench/webdb_bench bench/read_bench
WORK=${WORK:-/tmp/read_bench}
MEMORY=${MEMORY:-256M}
RUNS=${RUNS:-3}
WEBDB=$BUILD/tools/webdb
GEN=$BUILD/bench/webdb_bench
LOOKUP=$BUILD/bench/read_bench
PAGES=${1:-100000}
LOOKUPS=${2:-100000}
MAX_RUNS=6  # kMaxRuns, webdb/db/layer_plan.h

mkdir -p "$WORK"
RESULTS=$WORK/results.txt
: > "$RESULTS"
: > "$WORK/layers.txt"
BENCH=read_bench
# shellcheck source=bench/bench_lib.sh
. "$ROOT/bench/bench_lib.sh"
need_space 3 "$PAGES"

gen() { "$GEN" --pages "$PAGES" --rounds 10 --fraction "$1" --emit-phase "$2"; }
# The fewest runs any table of db $1 has.
fewest_runs() {
  "$WEBDB" stats "$1" --quick | grep -o '"runs":[0-9]*' | cut -d: -f2 | sort -n | head -n1
}

RUNS_DB=$WORK/runs
FLAT_DB=$WORK/flat
rm -rf "$RUNS_DB" "$FLAT_DB"
"$WEBDB" create "$RUNS_DB"
gen 0.2 0 | "$WEBDB" apply "$RUNS_DB" - --memory "$MEMORY" --quiet
round=0
for fraction in 0.04 0.02 0.01 0.005 0.0025 0.00125 0.000625 0.0003125; do
  [ "$(fewest_runs "$RUNS_DB")" -ge "$MAX_RUNS" ] && break
  round=$((round + 1))
  gen "$fraction" "$round" | "$WEBDB" apply "$RUNS_DB" - --memory "$MEMORY" --quiet
done
cp -al "$RUNS_DB" "$FLAT_DB"
"$WEBDB" compact "$FLAT_DB" > /dev/null 2>&1
sync

for _ in $(seq 1 "$RUNS"); do
  for db in runs flat; do
    dir=$WORK/$db
    out=$("$LOOKUP" --db "$dir" --lookups "$LOOKUPS")
    echo "$db $out" | head -n1 >> "$WORK/layers.txt"
    echo "$out" | awk -v l="lookup_$db" '/^lookups:/ { printf "%s %s 0 0 0\n", l, $5 }' >> "$RESULTS"
    timed "dump_$db" sh -c 'for t in pagesByURL pagesByMD5 linksByMD5 linksByURL; do
      "$0" dump -q "$1" --table "$t" || exit 1; done' "$WEBDB" "$dir"
    timed "generate_$db" "$WEBDB" generate -q "$dir" --memory "$MEMORY" --top 1 --now 0 \
      --dry-run
  done
done

echo "pages $PAGES, $LOOKUPS lookups, --memory $MEMORY, $round rounds after the load"
sort -u "$WORK/layers.txt" | sed 's/^/layers of /'
report
echo "runs / flat (target <= 1.3):"
for phase in lookup dump generate; do ratio "${phase}_runs" "${phase}_flat"; done
rm -rf "$RUNS_DB" "$FLAT_DB" "$WORK/layers.txt"
