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
# env: BUILD (default build, as `scripts/setup.sh` makes it, which runs here if
# its webdb_bench is missing), WORK (default /tmp/apply_bench), MEMORY (256M).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
WORK=${WORK:-/tmp/apply_bench}
MEMORY=${MEMORY:-256M}
WEBDB=$BUILD/tools/webdb
DISTWRITER=$BUILD/tools/distwriter
GEN=$BUILD/bench/webdb_bench

if [ ! -x "$GEN" ] || [ ! -x "$WEBDB" ] || [ ! -x "$DISTWRITER" ]; then
  "$ROOT/scripts/setup.sh" webdb_tool distwriter_tool webdb_bench >&2
fi
mkdir -p "$WORK"
RESULTS=$WORK/results.txt
: > "$RESULTS"

# timed LABEL CMD...: runs CMD then sync under a shell that reports its own I/O counters
# afterwards (they include the reaped CMD's); standard input passes through to CMD.
# Appends "LABEL wall cpu rss_kb wchar" to RESULTS. Wall time comes from the clock in
# nanoseconds (`time` gives it in 10 ms steps, coarse beside a 0.15 s round); CPU time
# is what the kernel accounts, in ticks. A CMD that fails stops the benchmark.
timed() {
  local label=$1 start end
  shift
  start=$(date +%s%N)
  if ! /usr/bin/time -f "%U %S %M" -o "$WORK/time.out" \
    sh -c '"$@" > /dev/null; s=$?; sync; grep ^wchar /proc/$$/io; exit $s' sh "$@" \
    > "$WORK/io.out"; then
    echo "apply_bench: $label failed: $*" >&2
    exit 1
  fi
  end=$(date +%s%N)
  awk -v l="$label" -v w="$(awk '{print $2}' "$WORK/io.out")" -v ns=$((end - start)) \
    '{printf "%s %.3f %.3f %d %.0f\n", l, ns / 1e9, $1 + $2, $3, w}' "$WORK/time.out" >> "$RESULTS"
}

db_bytes() { du -sb --apparent-size "$@" | awk '{s += $1} END {print s}'; }

# need_space KB_PER_PAGE PAGES: stops before the first phase when WORK's file system has
# less room than the run takes at its peak (measured: a 10M-page --scale run peaks near
# 30 GB, --dist 4 near 50.5 GB), rather than with ENOSPC minutes into it.
need_space() {
  local need_kb=$(($1 * $2)) avail_kb
  avail_kb=$(df -Pk "$WORK" | awk 'NR == 2 { print $4 }')
  if [ "$avail_kb" -lt "$need_kb" ]; then
    echo "apply_bench: $2 pages need ~$((need_kb / 1048576 + 1)) GB in $WORK, $((avail_kb / 1048576)) GB free" >&2
    exit 4
  fi
}

# gen PAGES FRACTION PHASE: the phase's calls on standard output.
gen() { "$GEN" --pages "$1" --rounds 1 --fraction "$2" --emit-phase "$3"; }

generator_time() {
  /usr/bin/time -f "%e %U %S" -o "$WORK/gen.out" "$GEN" --pages "$1" --rounds 1 --emit-phase 0 \
    > /dev/null
  awk -v p="$1" '{printf "generator alone, load of %d pages: wall %.1f s, cpu %.1f s\n", p, $1,
    $2 + $3}' "$WORK/gen.out"
}

# report [PAGES]: the table of RESULTS (medians over repeated labels); with PAGES, also
# microseconds of wall time per page.
report() {
  echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
  awk -v pages="${1:-0}" '
    $1 ~ /^db_/ { db[substr($1, 4)] = $2; next }
    { if (!($1 in n)) order[++labels] = $1
      n[$1]++; wall[$1, n[$1]] = $2; cpu[$1, n[$1]] = $3
      rss[$1] = $4 > rss[$1] ? $4 : rss[$1]; w[$1] = $5 }
    function median(a, k, m,   i, j, t, v) {
      for (i = 1; i <= m; i++) v[i] = a[k, i]
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      return v[int((m + 1) / 2)]
    }
    END {
      printf "%-12s %9s %9s %9s %10s %6s %s\n", "phase", "wall s", "cpu s", "peak MB", "written MB", "WA",
             (pages > 0 ? "us/page" : "")
      for (i = 1; i <= labels; i++) {
        k = order[i]
        wa = (k in db) ? sprintf("%.2f", w[k] / db[k]) : "-"
        per = (pages > 0 ? sprintf("%.1f", median(wall, k, n[k]) / pages * 1e6) : "")
        printf "%-12s %9.3f %9.3f %9.1f %10.1f %6s %s\n", k, median(wall, k, n[k]),
               median(cpu, k, n[k]), rss[k] / 1024, w[k] / 1e6, wa, per
      }
    }' "$RESULTS"
}

# ratio A B: median over runs of A's time / B's time, wall and CPU, and the range of the
# wall ratios of single pairs (this VM's whole-process times move by ~10% between runs,
# so a median of a few pairs is quoted with its spread).
ratio() {
  awk -v a="$1" -v b="$2" '
    $1 == a { na++; wa[na] = $2; ca[na] = $3 }
    $1 == b { nb++; wb[nb] = $2; cb[nb] = $3 }
    function median(v, m,   i, j, t) {
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      return v[int((m + 1) / 2)]
    }
    END {
      m = na < nb ? na : nb
      # CPU time comes in ticks: a tiny run may have none (its CPU ratio is then "-").
      for (i = 1; i <= m; i++) {
        rw[i] = wa[i] / wb[i]
        if (cb[i] > 0) rc[++mc] = ca[i] / cb[i]
      }
      lo = hi = rw[1]
      for (i = 2; i <= m; i++) { lo = rw[i] < lo ? rw[i] : lo; hi = rw[i] > hi ? rw[i] : hi }
      printf "%-10s / %-10s wall %.2f  cpu %s  wall of each pair %.2f-%.2f\n", a, b,
             median(rw, m), (mc > 0 ? sprintf("%.2f", median(rc, mc)) : "-"), lo, hi
    }' "$RESULTS"
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
