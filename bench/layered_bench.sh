#!/usr/bin/env bash
# layered_bench.sh: rounds that write runs (docs/DESIGN.md, "Layered tables") against
# rounds that rewrite the tables, on the issue-2 workload, whole processes, every timed
# command followed by `sync`.
#
#   bench/layered_bench.sh [PAGES] [ROUNDS]   at PAGES pages (default 100000; 1000000 and
#                                             10000000 are the issue's sizes):
#     small : a 0.1% round (fraction 0.001) on the loaded db
#     small2: the next 0.1% round on that db: the first round after a merge into the
#             bases (the load) rereads them whole, once (docs/DESIGN.md, "Versions and
#             crash safety"); from the second on a round reads what it changes
#     big   : a 20% round on the same loaded db (a copy of it)
#             -> time small / big and small2 / big, and bytes written by each against
#                the bytes of its own call file (its edits)
#     rounds: ROUNDS (default 100) successive 1% rounds on a copy of the loaded db:
#             total bytes written against the bytes of their call files plus one db size,
#             the most disk the db took after a round against its live data (the files
#             its current version names), and its dump, table by table, against that of a
#             second copy given the same rounds with `webdb compact` after each one (so
#             that every round of it merges into bases: the single-rewrite result)
#
#
#   bench/layered_bench.sh --dist K [PAGES] [ROUNDS]   the same, and then on a db of K local
#                                             writers (`distwriter launch`) the same load
#                                             and the same small, small2 and big rounds, one
#                                             after the other on that db (kK_small,
#                                             kK_small2, kK_big), each against the single
#                                             machine's
#
# Per phase (bench/bench_lib.sh): wall and CPU seconds, peak RSS, bytes written (wchar of
# the process and its children). Timings on a shared machine are not final figures.
# env: BUILD (default build-pgo, bench/build.sh), WORK (default /tmp/layered_bench),
# MEMORY (256M; each writer's with --dist).
set -euo pipefail

K=0
if [ "${1:-}" = --dist ]; then
  K=$2
  shift 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/build.sh"
bench_build tools/webdb tools/distwriter bench/webdb_bench
WORK=${WORK:-/tmp/layered_bench}
MEMORY=${MEMORY:-256M}
WEBDB=$BUILD/tools/webdb
DISTWRITER=$BUILD/tools/distwriter
GEN=$BUILD/bench/webdb_bench
PAGES=${1:-100000}
ROUNDS=${2:-100}

mkdir -p "$WORK"
RESULTS=$WORK/results.txt
: > "$RESULTS"
BENCH=layered_bench
# shellcheck source=bench/bench_lib.sh
. "$ROOT/bench/bench_lib.sh"
need_space 8 "$PAGES"

# gen FRACTION ROUND: the calls of round ROUND (0: the load) of ROUNDS at PAGES pages.
gen() { "$GEN" --pages "$PAGES" --rounds "$ROUNDS" --fraction "$1" --emit-phase "$2"; }
# The bytes of the files the current version of db $1 names (its tables' parts and runs).
live_bytes() {
  awk '$1 == "table" || $1 == "run" { s += $5 } END { print s + 0 }' "$1/$(head -n1 "$1/CURRENT")"
}
wchar() { awk -v l="$1" '$1 == l { s += $5 } END { printf "%.0f", s }' "$RESULTS"; }
apply() { "$WEBDB" apply "$1" "$2" --memory "$MEMORY" --quiet; }

BASE=$WORK/base
rm -rf "$BASE" "$WORK"/db-* "$WORK"/calls
mkdir -p "$WORK/calls"
"$WEBDB" create "$BASE"
gen 0.2 0 > "$WORK/calls/load.jsonl"
apply "$BASE" "$WORK/calls/load.jsonl"
DB_BYTES=$(live_bytes "$BASE")
rm -f "$WORK/calls/load.jsonl"
sync

# One small and one big round on copies of the same loaded db.
gen 0.001 1 > "$WORK/calls/small.jsonl"
gen 0.001 2 > "$WORK/calls/small2.jsonl"
gen 0.2 1 > "$WORK/calls/big.jsonl"
for phase in small big; do
  cp -al "$BASE" "$WORK/db-$phase" && sync
  timed "$phase" "$WEBDB" apply "$WORK/db-$phase" "$WORK/calls/$phase.jsonl" --memory "$MEMORY" \
    --quiet
  echo "db_$phase $(db_bytes "$WORK/db-$phase")" >> "$RESULTS"
  echo "edits_$phase $(stat -c %s "$WORK/calls/$phase.jsonl")" >> "$WORK/edits.txt"
  if [ "$phase" = small ]; then
    timed small2 "$WEBDB" apply "$WORK/db-$phase" "$WORK/calls/small2.jsonl" --memory "$MEMORY" \
      --quiet
  fi
  rm -rf "$WORK/db-$phase"
done

# The same load and rounds through K local writers, the rounds one after the other.
if [ "$K" -gt 0 ]; then
  conf=$WORK/k$K.conf
  rm -rf "$WORK/k$K"
  "$DISTWRITER" init-local --writers "$K" --root "$WORK/k$K" --out "$conf" > /dev/null
  "$DISTWRITER" create --config "$conf"
  gen 0.2 0 > "$WORK/calls/load.jsonl"
  "$DISTWRITER" launch --config "$conf" --memory "$MEMORY" --quiet "$WORK/calls/load.jsonl" \
    > /dev/null
  rm -f "$WORK/calls/load.jsonl"
  sync
  for phase in small small2 big; do
    timed "k${K}_$phase" "$DISTWRITER" launch --config "$conf" --memory "$MEMORY" --quiet \
      "$WORK/calls/$phase.jsonl"
  done
  rm -rf "$WORK/k$K" "$conf"
fi

# ROUNDS successive 1% rounds, and the same rounds each followed by a compaction.
cp -al "$BASE" "$WORK/db-rounds"
cp -al "$BASE" "$WORK/db-compacted"
edits=0 peak=0 peak_live=0
for r in $(seq 1 "$ROUNDS"); do
  gen 0.01 "$r" > "$WORK/calls/round.jsonl"
  edits=$((edits + $(stat -c %s "$WORK/calls/round.jsonl")))
  timed rounds "$WEBDB" apply "$WORK/db-rounds" "$WORK/calls/round.jsonl" --memory "$MEMORY" \
    --quiet
  disk=$(db_bytes "$WORK/db-rounds")
  if [ "$disk" -gt "$peak" ]; then peak=$disk peak_live=$(live_bytes "$WORK/db-rounds"); fi
  apply "$WORK/db-compacted" "$WORK/calls/round.jsonl"
  "$WEBDB" compact "$WORK/db-compacted" > /dev/null 2>&1
done
same=yes
for t in pagesByURL pagesByMD5 linksByURL linksByMD5; do
  if ! cmp -s <("$WEBDB" dump "$WORK/db-rounds" --table "$t") \
    <("$WEBDB" dump "$WORK/db-compacted" --table "$t"); then
    same="no ($t differs)"
  fi
done
"$WEBDB" stats "$WORK/db-rounds" > "$WORK/stats.txt" || true
rm -rf "$WORK/db-rounds" "$WORK/db-compacted" "$WORK/calls" "$BASE"

echo "pages $PAGES, --memory $MEMORY, db after the load $DB_BYTES bytes"
report
awk -v small="$(grep edits_small "$WORK/edits.txt" | cut -d' ' -f2)" \
    -v big="$(grep edits_big "$WORK/edits.txt" | cut -d' ' -f2)" '
  $1 == "small" { ws = $5; ts = $2 } $1 == "big" { wb = $5; tb = $2 } $1 == "small2" { ts2 = $2 }
  END {
    printf "small round / big round: time %.3f, bytes written %.3f\n", ts / tb, ws / wb
    printf "second small round / big round: time %.3f\n", ts2 / tb
    printf "small round: written / its edits %.2f; big round: written / its edits %.2f\n",
           ws / small, wb / big
  }' "$RESULTS"
if [ "$K" -gt 0 ]; then
  awk -v k="k$K" '
    { t[$1] = $2 }
    END {
      printf "%s_small / small: time %.3f; %s_small2 / small2: time %.3f; ", k,
             t[k "_small"] / t["small"], k, t[k "_small2"] / t["small2"]
      printf "%s_big / big: time %.3f\n", k, t[k "_big"] / t["big"]
      printf "%s_small2 / %s_big: time %.3f\n", k, k, t[k "_small2"] / t[k "_big"]
    }' "$RESULTS"
fi
awk -v w="$(wchar rounds)" -v e="$edits" -v db="$DB_BYTES" -v n="$ROUNDS" \
    -v peak="$peak" -v live="$peak_live" -v same="$same" 'BEGIN {
  printf "%d rounds of 1%%: written %.1f MB, edits %.1f MB, written / (edits + db) %.2f, " \
         "written / edits %.2f\n", n, w / 1e6, e / 1e6, w / (e + db), w / e
  printf "most disk after a round %.1f MB, its live data %.1f MB: %.2f\n", peak / 1e6,
         live / 1e6, peak / live
  printf "dump equal to the compacted (single-rewrite) db: %s\n", same
}'
rm -f "$WORK/edits.txt"
