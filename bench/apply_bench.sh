#!/usr/bin/env bash
# apply_bench.sh: `webdb apply` of the issue-2 workload against its yardsticks, as ratios
# taken pair by pair in the same run (A B A B ...), medians over RUNS pairs:
#   load  : `webdb apply` of the load     vs  `LC_ALL=C sort -S 512M` of the same call file
#   round : `webdb apply` of a 20% round  vs  the same sort of the round's call file
#   floor : the 20% round + sync          vs  `cat` of the db's table files + sync
#   small : a 0.1% round + sync           vs  the same floor
# Whole processes, timed with /usr/bin/time; per phase also the peak RSS and the bytes
# written (wchar of the apply process) divided by the db size (write amplification).
#
#   bench/apply_bench.sh [PAGES] [RUNS]        (defaults: 100000 3)
#   env: BUILD (default build), WORK (default /tmp/apply_bench), MEMORY (256M)
#
# Call files are generated once into WORK (a 1M-page load is ~2.2 GB).
set -euo pipefail

PAGES=${1:-100000}
RUNS=${2:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
WORK=${WORK:-/tmp/apply_bench}
MEMORY=${MEMORY:-256M}
WEBDB=$BUILD/tools/webdb
GEN=$BUILD/bench/webdb_bench

mkdir -p "$WORK"
CALLS=$WORK/calls-$PAGES
if [ ! -f "$CALLS/small.jsonl" ]; then
  mkdir -p "$CALLS"
  "$GEN" --pages "$PAGES" --rounds 1 --emit-phase 0 > "$CALLS/load.jsonl"
  "$GEN" --pages "$PAGES" --rounds 1 --emit-phase 1 > "$CALLS/round.jsonl"
  "$GEN" --pages "$PAGES" --rounds 1 --fraction 0.001 --emit-phase 1 > "$CALLS/small.jsonl"
fi

# timed LABEL CMD...: runs CMD under a shell that reports, after it, its own I/O
# counters (which include those of the reaped CMD); prints "LABEL wall cpu rss_kb wchar".
timed() {
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.out" \
    sh -c '"$@" > /dev/null; grep ^wchar /proc/$$/io' sh "$@" > "$WORK/io.out"
  awk -v l="$label" -v w="$(awk '{print $2}' "$WORK/io.out")" \
    '{printf "%s %.3f %.3f %d %d\n", l, $1, $2 + $3, $4, w}' "$WORK/time.out"
}

db_bytes() { du -sb --apparent-size "$1" | cut -f1; }

BASE=$WORK/base-$PAGES
rm -rf "$BASE" "$WORK/db" "$WORK/floor.out"
"$WEBDB" create "$BASE"
"$WEBDB" apply "$BASE" "$CALLS/load.jsonl" --memory "$MEMORY" --quiet
sync

RESULTS=$WORK/results-$PAGES.txt
: > "$RESULTS"
for run in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/db" && "$WEBDB" create "$WORK/db"
  timed load "$WEBDB" apply "$WORK/db" "$CALLS/load.jsonl" --memory "$MEMORY" --quiet >> "$RESULTS"
  echo "db_load $(db_bytes "$WORK/db")" >> "$RESULTS"
  timed sort_load env LC_ALL=C sort -S 512M "$CALLS/load.jsonl" -o "$WORK/sorted.out" >> "$RESULTS"
  rm -f "$WORK/sorted.out"
  for phase in round small; do
    rm -rf "$WORK/db" && cp -al "$BASE" "$WORK/db" && sync
    timed "$phase" sh -c "'$WEBDB' apply '$WORK/db' '$CALLS/$phase.jsonl' --memory $MEMORY --quiet && sync" >> "$RESULTS"
    echo "db_$phase $(db_bytes "$WORK/db")" >> "$RESULTS"
  done
  timed sort_round env LC_ALL=C sort -S 512M "$CALLS/round.jsonl" -o "$WORK/sorted.out" >> "$RESULTS"
  rm -f "$WORK/sorted.out"
  timed floor sh -c "cat '$BASE'/*.tbl > '$WORK/floor.out' && sync" >> "$RESULTS"
  rm -f "$WORK/floor.out"
done
rm -rf "$WORK/db"

echo "pages $PAGES, $RUNS runs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
  $1 ~ /^db_/ { db[substr($1, 4)] = $2; next }
  { n[$1]++; wall[$1, n[$1]] = $2; cpu[$1, n[$1]] = $3; rss[$1] = $4 > rss[$1] ? $4 : rss[$1];
    w[$1] = $5 }
  function median(a, k, m,   i, j, t, v) {
    for (i = 1; i <= m; i++) v[i] = a[k, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((m + 1) / 2)]
  }
  function ratio(a, b, what,   i, r, m) {
    m = n[a]
    for (i = 1; i <= m; i++) r[1, i] = (what == "wall" ? wall[a, i] / wall[b, i] : cpu[a, i] / cpu[b, i])
    return median(r, 1, m)
  }
  END {
    printf "%-6s %9s %9s %9s %9s %8s\n", "phase", "wall s", "cpu s", "peak MB", "written", "WA"
    split("load round small sort_load sort_round floor", ph, " ")
    for (p = 1; p <= 6; p++) {
      k = ph[p]
      wa = (k in db) ? sprintf("%.2f", w[k] / db[k]) : "-"
      printf "%-10s %9.3f %9.3f %9.1f %9.1f %8s\n", k, median(wall, k, n[k]), median(cpu, k, n[k]),
             rss[k] / 1024, w[k] / 1e6, wa
    }
    printf "load / sort        wall %.2f  cpu %.2f\n", ratio("load", "sort_load", "wall"), ratio("load", "sort_load", "cpu")
    printf "round / sort       wall %.2f  cpu %.2f\n", ratio("round", "sort_round", "wall"), ratio("round", "sort_round", "cpu")
    printf "round / cat floor  wall %.2f  cpu %.2f\n", ratio("round", "floor", "wall"), ratio("round", "floor", "cpu")
    printf "0.1%% / cat floor   wall %.2f  cpu %.2f\n", ratio("small", "floor", "wall"), ratio("small", "floor", "cpu")
  }' "$RESULTS"
