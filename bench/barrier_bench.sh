#!/usr/bin/env bash
# barrier_bench.sh: what the distributed writer's barriers and exchanges cost as k grows
# (docs/DISTRIBUTED.md, "Scale"). The issue-2 workload (bench/workload.h) of PAGES pages
# as JSON call files; for each K, on this host, a db of K local writers (`distwriter
# init-local`) gets the load, then one 20% round is timed (`distwriter launch --json`):
# the same data for every K, in one run.
#
#   bench/barrier_bench.sh [PAGES] [K...]      (defaults: 20000 1 4 16 64)
#   env: BUILD (default build-pgo, as `scripts/setup.sh --pgo` makes it: bench/build.sh),
#   WORK (default /tmp/barrier_bench), MEMORY (each writer's budget, default 32M)
#
# Output, per K: the round's wall seconds and CPU seconds (launch and its writers, as the
# kernel accounts them), the sum of the writers' own CPU seconds, then one line per stage
# 0..6: the seconds of a writer in the stage (mean over writers), of which waiting at
# the stage's barrier for peers' files (mean and max over writers) and working (the
# rest, mean), the exchange files all writers sent in the stage and their bytes (a
# writer's own section of stages 1..5 stays in its sorter: k(k-1) files). Then a
# "RESULT {...}" line with the same figures. The round's figures are those of
# `distwriter run`'s report (stage_seconds, wait_seconds, files_sent, bytes_sent).
set -euo pipefail

PAGES=${1:-20000}
shift $(( $# > 0 ? 1 : 0 ))
KS=("${@:-1 4 16 64}")
read -r -a KS <<< "${KS[*]}"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/build.sh"
bench_build tools/distwriter bench/webdb_bench
WORK=${WORK:-/tmp/barrier_bench}
MEMORY=${MEMORY:-32M}
DISTWRITER=$BUILD/tools/distwriter

rm -rf "$WORK"
mkdir -p "$WORK"
"$BUILD/bench/webdb_bench" --pages "$PAGES" --rounds 1 --emit-json "$WORK/calls" > /dev/null
echo "pages $PAGES, round-1 calls: $(wc -l < "$WORK/calls/round-1.jsonl"), --memory $MEMORY a writer"

for k in "${KS[@]}"; do
  conf=$WORK/k$k.conf
  "$DISTWRITER" init-local --writers "$k" --root "$WORK/k$k" --out "$conf"
  "$DISTWRITER" create --config "$conf"
  "$DISTWRITER" launch --config "$conf" --memory "$MEMORY" --quiet "$WORK/calls/load.jsonl" \
    > /dev/null
  start=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$WORK/time.out" "$DISTWRITER" launch --config "$conf" \
    --memory "$MEMORY" --quiet --json "$WORK/calls/round-1.jsonl" > "$WORK/k$k.json"
  end=$(date +%s%N)
  jq -r --arg k "$k" --argjson wall "$(( end - start ))" \
    --argjson cpu "$(awk '{print $1 + $2}' "$WORK/time.out")" '
    [.writers[].report] as $w | ($w | length) as $n |
    [range(0; 7) as $s | {
      stage: $s,
      seconds: ([$w[].stage_seconds[$s]] | add / $n),
      wait: ([$w[].wait_seconds[$s]] | add / $n),
      max_wait: ([$w[].wait_seconds[$s]] | max),
      files: ([$w[].files_sent[$s]] | add),
      bytes: ([$w[].bytes_sent[$s]] | add)}] as $stages |
    {k: ($k | tonumber), wall: ($wall / 1e9), cpu: $cpu,
     writers_cpu: ([$w[].cpu_seconds] | add), pages: .pages, links: .links,
     stages: $stages} as $r |
    (["k=\($r.k): round wall \($r.wall * 1000 | round / 1000) s, cpu \($r.cpu) s",
      " (writers \($r.writers_cpu * 1000 | round / 1000) s); \($r.pages) pages, \($r.links) links"]
     | add),
    "stage    mean_s    wait_s  max_wait_s    work_s    files       bytes",
    ($stages[] | [("s\(.stage)"), (.seconds, .wait, .max_wait, .seconds - .wait
      | . * 1000 | round / 1000 | tostring), (.files | tostring), (.bytes | tostring)]
     | "\(.[0] + "      " | .[0:6])\(.[1:5] | map("          " + . | .[-10:]) | add)\(
        "         " + .[5] | .[-9:])\("            " + .[6] | .[-12:])"),
    "RESULT \($r | tojson)"' "$WORK/k$k.json"
  rm -rf "$WORK/k$k"
done
