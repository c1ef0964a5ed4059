#!/usr/bin/env bash
# dist_bench.sh: the issue-2 workload as JSON call files, applied by the single-machine
# `webdb apply` and by k distributed writers on this host (`distwriter launch`), with the
# wall time of every phase, `webdb apply` throughput, and the launch reports (per-stage
# seconds and bytes exchanged per stage).
#
#   bench/dist_bench.sh [PAGES] [ROUNDS] [K...]      (defaults: 100000 3 4)
#   env: BUILD (default build-pgo, as `scripts/setup.sh --pgo` makes it: bench/build.sh),
#   WORK (default /tmp/dist_bench), MEMORY (256M)
#
# Output: one "RESULT {...}" line per phase plus the launch reports, on stdout.
set -euo pipefail

PAGES=${1:-100000}
ROUNDS=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
KS=("${@:-4}")
[ ${#KS[@]} -eq 0 ] && KS=(4)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/build.sh"
bench_build tools/webdb tools/distwriter bench/webdb_bench
WORK=${WORK:-/tmp/dist_bench}
MEMORY=${MEMORY:-256M}
WEBDB=$BUILD/tools/webdb
DISTWRITER=$BUILD/tools/distwriter

rm -rf "$WORK"
mkdir -p "$WORK"
"$BUILD/bench/webdb_bench" --pages "$PAGES" --rounds "$ROUNDS" --emit-json "$WORK/calls" >&2
PHASES=(load)
for r in $(seq 1 "$ROUNDS"); do PHASES+=("round-$r"); done

now() { date +%s%N; }

# result WHO PHASE START_NS END_NS CALLFILE
result() {
  local calls bytes
  calls=$(wc -l < "$5")
  bytes=$(stat -c %s "$5")
  awk -v who="$1" -v phase="$2" -v s="$(( $4 - $3 ))" -v c="$calls" -v b="$bytes" 'BEGIN {
    s /= 1e9
    printf "RESULT {\"who\":\"%s\",\"phase\":\"%s\",\"seconds\":%.3f,\"calls\":%d,", who, phase, s, c
    printf "\"calls_per_s\":%.0f,\"mb_per_s\":%.1f}\n", c / s, b / s / 1048576 }'
}

"$WEBDB" create "$WORK/single"
for p in "${PHASES[@]}"; do
  t0=$(now)
  "$WEBDB" apply "$WORK/single" "$WORK/calls/$p.jsonl" --memory "$MEMORY" --quiet
  t1=$(now)
  result single "$p" "$t0" "$t1" "$WORK/calls/$p.jsonl"
done
echo "single db: $(du -sb "$WORK/single" | cut -f1) bytes"

for k in "${KS[@]}"; do
  "$DISTWRITER" init-local --writers "$k" --root "$WORK/k$k" --out "$WORK/k$k.conf"
  "$DISTWRITER" create --config "$WORK/k$k.conf"
  for p in "${PHASES[@]}"; do
    t0=$(now)
    "$DISTWRITER" launch --config "$WORK/k$k.conf" --memory "$MEMORY" --quiet \
      "$WORK/calls/$p.jsonl" > "$WORK/k$k-$p.report"
    t1=$(now)
    result "k=$k" "$p" "$t0" "$t1" "$WORK/calls/$p.jsonl"
    sed 's/^/  /' "$WORK/k$k-$p.report"
  done
  echo "k=$k db: $(du -sb "$WORK/k$k" | cut -f1) bytes"
  rm -rf "$WORK/k$k"
done
