#!/usr/bin/env bash
# original_bench.sh: `webdb apply` against the original Nutch 0.6 WebDB, side by side, as a
# new user would run them: whole processes, one call file a process, every timed command
# followed by `sync` (bench/bench_lib.sh).
#
#   bench/original_bench.sh [PAGES] [RUNS]   the issue-2 workload at PAGES pages (default
#                                            100000): its load, then three rounds each
#                                            touching 20% of the pages, and a 0.1% round;
#                                            RUNS times (default 3), each on two fresh dbs,
#                                            phase by phase alternating ours and the
#                                            original's (shared/anchors/nutch-0.6/run.sh)
#                                            on the same call file. Reports each phase's
#                                            medians and the ratio original / ours, and
#                                            checks after every run that both dbs hold the
#                                            same number of pages and links.
#
# env: BUILD (default build-pgo, made by scripts/setup.sh --pgo if missing: bench/build.sh),
# WORK (default /tmp/original_bench), MEMORY (256M, ours), JAVA_OPTS (the original's,
# default -Xmx1g), ANCHOR (the original's directory).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/build.sh"
bench_build tools/webdb bench/webdb_bench
WORK=${WORK:-/tmp/original_bench}
MEMORY=${MEMORY:-256M}
ANCHOR=${ANCHOR:-$ROOT/../shared/anchors/nutch-0.6}
WEBDB=$BUILD/tools/webdb
GEN=$BUILD/bench/webdb_bench
if ! command -v java > /dev/null; then
  echo "original_bench: the original needs java (apt-get install openjdk-17-jre-headless)" >&2
  exit 2
fi
mkdir -p "$WORK"
RESULTS=$WORK/results.txt
: > "$RESULTS"
: > "$WORK/original.log"
BENCH=original_bench
# shellcheck source=bench/bench_lib.sh
. "$ROOT/bench/bench_lib.sh"

PAGES=${1:-100000}
RUNS=${2:-3}
PHASES="load round1 round2 round3 small"
need_space 10 "$PAGES"

# The call files, stored: the original reads files. round1..3 are the workload's rounds of
# 20%; small is a round of 0.1% after them (the generator's first round at that fraction).
CALLS=$WORK/calls-$PAGES
if [ ! -f "$CALLS/small.jsonl" ]; then
  mkdir -p "$CALLS"
  for phase in 0 1 2 3; do
    name=load
    [ "$phase" = 0 ] || name=round$phase
    "$GEN" --pages "$PAGES" --rounds 3 --fraction 0.2 --emit-phase "$phase" > "$CALLS/$name.jsonl"
  done
  "$GEN" --pages "$PAGES" --rounds 1 --fraction 0.001 --emit-phase 1 > "$CALLS/small.jsonl"
fi

# counts DB JDB: fails unless ours and the original's hold as many pages and links.
counts() {
  local ours theirs
  ours=$("$WEBDB" stats --quick "$1" | grep -o '"pages":[0-9]*,"links":[0-9]*')
  theirs=$("$ANCHOR/run.sh" --stats "$2" 2>> "$WORK/original.log" | grep -o '"pages":[0-9]*,"links":[0-9]*')
  if [ "$ours" != "$theirs" ]; then
    echo "original_bench: the dbs differ after the run: ours $ours, the original's $theirs" >&2
    exit 1
  fi
  echo "$ours"
}

for run in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/db" "$WORK/jdb"
  "$WEBDB" create "$WORK/db"
  sync
  for phase in $PHASES; do
    timed "$phase" "$WEBDB" apply "$WORK/db" "$CALLS/$phase.jsonl" --memory "$MEMORY" --quiet
    # The original logs each stage on standard error: kept in original.log.
    timed "original_$phase" sh -c 'exec "$@" 2>> "$0"' "$WORK/original.log" \
      "$ANCHOR/run.sh" "$WORK/jdb" "$CALLS/$phase.jsonl"
  done
  held=$(counts "$WORK/db" "$WORK/jdb")
done
rm -rf "$WORK/db" "$WORK/jdb"
echo "pages $PAGES ($held in both), $RUNS runs, --memory $MEMORY"
report
for phase in $PHASES; do ratio "original_$phase" "$phase"; done
