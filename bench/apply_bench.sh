#!/usr/bin/env bash
# apply_bench.sh: `webdb apply` of the issue-2 workload against its yardsticks, whole
# processes, every timed command followed by `sync` (its own writes reach the disk
# before the clock stops, on both sides of every ratio).
#
#   bench/apply_bench.sh [PAGES] [RUNS]     ratios at PAGES pages (default 100000, 3 runs),
#                                           taken pair by pair in the same run (A B A B),
#                                           medians over RUNS pairs:
#     load  : `webdb apply` of the load  vs  `LC_ALL=C sort -S 512M` of the same call file
#     round : `webdb apply` of a 20% round  vs  the same sort of the round's call file
#     floor : the 20% round  vs  `cat` of the db's table files into one new file
#     small : a 0.1% round (fraction 0.001)  vs  the same floor
#   bench/apply_bench.sh --scale PAGES      the load and one 20% round at PAGES pages (1M,
#                                           10M), the calls piped from the generator (never
#                                           stored): time per page, peak RSS, bytes written
#   bench/apply_bench.sh --dist K PAGES     the same load and round through `distwriter
#                                           launch` with K local writers, right after the
#                                           single writer, and the ratio of their times
#
# Per phase: wall and CPU seconds (user + system), peak RSS of the process that ran it,
# bytes written (wchar of it and its children) and write amplification = bytes written /
# db size after the phase. Calls are piped with `webdb_bench --emit-phase P | ... -`; the
# generator's own time is printed once (it must stay well below the apply's).
#
# env: BUILD (default build-pgo, as `scripts/setup.sh --pgo` makes it, which runs here if
# a tool is missing: bench/build.sh), WORK (default /tmp/apply_bench), MEMORY (256M).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/build.sh"
bench_build tools/webdb tools/distwriter bench/webdb_bench
WORK=${WORK:-/tmp/apply_bench}
MEMORY=${MEMORY:-256M}
WEBDB=$BUILD/tools/webdb
DISTWRITER=$BUILD/tools/distwriter
GEN=$BUILD/bench/webdb_bench

mkdir -p "$WORK"
RESULTS=$WORK/results.txt
: > "$RESULTS"
BENCH=apply_bench
# shellcheck source=bench/bench_lib.sh
. "$ROOT/bench/bench_lib.sh"

# gen PAGES FRACTION PHASE: the phase's calls on standard output.
gen() { "$GEN" --pages "$1" --rounds 1 --fraction "$2" --emit-phase "$3"; }

generator_time() {
  /usr/bin/time -f "%e %U %S" -o "$WORK/gen.out" "$GEN" --pages "$1" --rounds 1 --emit-phase 0 \
    > /dev/null
  awk -v p="$1" '{printf "generator alone, load of %d pages: wall %.1f s, cpu %.1f s\n", p, $1,
    $2 + $3}' "$WORK/gen.out"
}

# single PAGES DB: the load and one 20% round, piped, on a fresh single-machine db.
single() {
  rm -rf "$2" && "$WEBDB" create "$2"
  gen "$1" 0.2 0 | timed load "$WEBDB" apply "$2" - --memory "$MEMORY" --quiet
  echo "db_load $(db_bytes "$2")" >> "$RESULTS"
  gen "$1" 0.2 1 | timed round "$WEBDB" apply "$2" - --memory "$MEMORY" --quiet
  echo "db_round $(db_bytes "$2")" >> "$RESULTS"
}

# dist K PAGES: the same through distwriter launch on K local writers.
dist() {
  local conf=$WORK/k$1.conf
  rm -rf "$WORK/k$1" "$conf"
  "$DISTWRITER" init-local --writers "$1" --root "$WORK/k$1" --out "$conf" > /dev/null
  "$DISTWRITER" create --config "$conf"
  gen "$2" 0.2 0 | timed "k$1_load" "$DISTWRITER" launch --config "$conf" --memory "$MEMORY" \
    --quiet -
  echo "db_k$1_load $(db_bytes "$WORK/k$1"/m*/*/w*/section)" >> "$RESULTS"
  gen "$2" 0.2 1 | timed "k$1_round" "$DISTWRITER" launch --config "$conf" --memory "$MEMORY" \
    --quiet -
  echo "db_k$1_round $(db_bytes "$WORK/k$1"/m*/*/w*/section)" >> "$RESULTS"
}

case "${1:-}" in
  --scale)
    PAGES=$2
    need_space 3 "$PAGES"
    generator_time "$PAGES"
    single "$PAGES" "$WORK/db"
    rm -rf "$WORK/db"
    echo "pages $PAGES, --memory $MEMORY, calls piped"
    report "$PAGES"
    ;;
  --dist)
    K=$2
    PAGES=$3
    need_space 6 "$PAGES"
    generator_time "$PAGES"
    single "$PAGES" "$WORK/db"
    rm -rf "$WORK/db"
    dist "$K" "$PAGES"
    rm -rf "$WORK/k$K" "$WORK/k$K.conf"
    echo "pages $PAGES, --memory $MEMORY, calls piped; k = $K (sections keep the previous version)"
    report "$PAGES"
    ratio "k${K}_load" load
    ratio "k${K}_round" round
    ;;
  *)
    PAGES=${1:-100000}
    RUNS=${2:-3}
    need_space 8 "$PAGES"  # three call files, the base db, a copy's new tables, sort output
    CALLS=$WORK/calls-$PAGES
    if [ ! -f "$CALLS/small.jsonl" ]; then
      mkdir -p "$CALLS"
      gen "$PAGES" 0.2 0 > "$CALLS/load.jsonl"
      gen "$PAGES" 0.2 1 > "$CALLS/round.jsonl"
      gen "$PAGES" 0.001 1 > "$CALLS/small.jsonl"
    fi
    BASE=$WORK/base-$PAGES
    rm -rf "$BASE" "$WORK/db" "$WORK/out"
    "$WEBDB" create "$BASE"
    "$WEBDB" apply "$BASE" "$CALLS/load.jsonl" --memory "$MEMORY" --quiet
    sync
    for run in $(seq 1 "$RUNS"); do
      rm -rf "$WORK/db" && "$WEBDB" create "$WORK/db" && sync
      timed load "$WEBDB" apply "$WORK/db" "$CALLS/load.jsonl" --memory "$MEMORY" --quiet
      echo "db_load $(db_bytes "$WORK/db")" >> "$RESULTS"
      timed sort_load env LC_ALL=C sort -S 512M "$CALLS/load.jsonl" -o "$WORK/out"
      rm -f "$WORK/out"
      for phase in round small; do
        rm -rf "$WORK/db" && cp -al "$BASE" "$WORK/db" && sync
        timed "$phase" "$WEBDB" apply "$WORK/db" "$CALLS/$phase.jsonl" --memory "$MEMORY" --quiet
        echo "db_$phase $(db_bytes "$WORK/db")" >> "$RESULTS"
      done
      timed sort_round env LC_ALL=C sort -S 512M "$CALLS/round.jsonl" -o "$WORK/out"
      rm -f "$WORK/out"
      timed floor sh -c "cat '$BASE'/*.tbl > '$WORK/out'"
      rm -f "$WORK/out"
    done
    rm -rf "$WORK/db"
    echo "pages $PAGES, $RUNS runs, --memory $MEMORY"
    report
    ratio load sort_load
    ratio round sort_round
    ratio round floor
    ratio small floor
    ;;
esac
