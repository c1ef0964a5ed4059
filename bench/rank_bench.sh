#!/usr/bin/env bash
# rank_bench.sh: `webdb rank` against its yardsticks (issue 35, docs/PERFORMANCE.md), whole
# processes, every timed command followed by `sync` (bench/bench_lib.sh).
#
#   bench/rank_bench.sh [PAGES] [RUNS]   the db of the issue-2 workload after its load and
#                                        three 20% rounds (PAGES pages, default 100000),
#                                        medians over RUNS (default 3), pair by pair:
#     rank1    : `webdb rank --iterations 1` (the graph files, one iteration, the page
#                tables rewritten and published)  vs
#     original : the original's link analysis, one iteration (shared/anchors/nutch-0.6:
#                rank.sh on a db built by run.sh from the same call files; ORIGINAL=0
#                leaves it out), and
#     round    : `webdb apply` of a fourth 20% round on the same db.
#     The iteration alone (rank's own figure, "iterationSeconds") is reported beside.
#   bench/rank_bench.sh --scale PAGES    the same db at PAGES pages (1M, 10M; calls piped,
#                                        never stored): a 20% round, rank1, and ten
#                                        iterations (--epsilon 0) with their peak RSS;
#                                        microseconds per link
#   bench/rank_bench.sh --dist K PAGES   ten iterations on one machine and on K local
#                                        writers (`webdb rank --config`), and their ratio
#
# env: BUILD (default build-pgo, made by scripts/setup.sh --pgo if missing: bench/build.sh),
# WORK (default /tmp/rank_bench), MEMORY (256M), ORIGINAL (1),
# JAVA_OPTS (the original's, default -Xmx1g).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/build.sh"
bench_build tools/webdb tools/distwriter bench/webdb_bench
WORK=${WORK:-/tmp/rank_bench}
MEMORY=${MEMORY:-256M}
ORIGINAL=${ORIGINAL:-1}
ANCHOR=${ANCHOR:-$ROOT/../shared/anchors/nutch-0.6}
WEBDB=$BUILD/tools/webdb
DISTWRITER=$BUILD/tools/distwriter
# `webdb rank --config` starts the distwriter found through PATH (the config names none).
PATH="$(cd "$BUILD/tools" && pwd):$PATH"
GEN=$BUILD/bench/webdb_bench
if [ "$ORIGINAL" = 1 ] && ! command -v java > /dev/null; then
  echo "rank_bench: the original needs java (apt-get install openjdk-17-jre-headless), or ORIGINAL=0" >&2
  exit 2
fi
mkdir -p "$WORK"
RESULTS=$WORK/results.txt
: > "$RESULTS"
BENCH=rank_bench
# shellcheck source=bench/bench_lib.sh
. "$ROOT/bench/bench_lib.sh"

# gen PAGES PHASE: the calls of the workload's phase (0: the load, r: round r of four).
gen() { "$GEN" --pages "$1" --rounds 4 --fraction 0.2 --emit-phase "$2"; }

# build PAGES DB: the load and rounds 1..3 (calls piped) into a fresh single-machine db.
build() {
  rm -rf "$2" && "$WEBDB" create "$2"
  for phase in 0 1 2 3; do gen "$1" "$phase" | "$WEBDB" apply "$2" - --memory "$MEMORY" --quiet; done
  sync
}

# iteration LABEL JSON: the seconds of the iterations `webdb rank --json` reports, as
# results of LABEL (one line each).
iteration() {
  grep -o '"iterationSeconds":\[[^]]*' "$2" | cut -d[ -f2 | tr ',' '\n' |
    awk -v l="$1" 'NF { printf "%s %s 0 0 0\n", l, $1 }' >> "$RESULTS"
}

# rank LABEL DB ARGS...: `webdb rank DB ARGS --json`, timed, and its iterations' seconds
# as LABEL_iteration.
rank() {
  local label=$1 db=$2
  shift 2
  timed "$label" sh -c '"$@" > "$0"' "$WORK/rank.json" "$WEBDB" rank "$db" --json --quiet \
    --memory "$MEMORY" "$@"
  iteration "${label}_iteration" "$WORK/rank.json"
}

links() { "$WEBDB" stats --quick "$1" | grep -o '"links":[0-9]*' | cut -d: -f2; }

case "${1:-}" in
  --scale)
    PAGES=$2
    need_space 4 "$PAGES"
    BASE=$WORK/base
    build "$PAGES" "$BASE"
    L=$(links "$BASE")
    rm -rf "$WORK/db" && cp -al "$BASE" "$WORK/db" && sync
    gen "$PAGES" 4 | timed round "$WEBDB" apply "$WORK/db" - --memory "$MEMORY" --quiet
    rm -rf "$WORK/db" && cp -al "$BASE" "$WORK/db" && sync
    rank rank1 "$WORK/db" --iterations 1
    rm -rf "$WORK/db" && cp -al "$BASE" "$WORK/db" && sync
    rank rank10 "$WORK/db" --iterations 10 --epsilon 0
    rm -rf "$WORK/db" "$BASE"
    echo "pages $PAGES, links $L, --memory $MEMORY (peak RSS within budget + 64 MiB: $((
      $(echo "$MEMORY" | numfmt --from=iec) / 1048576 + 64)) MB)"
    report
    awk -v l="$L" '$1 == "rank1_iteration" || $1 == "rank10_iteration" {
        s[$1] += $2; n[$1]++ }
      END { for (k in s) printf "%s: %.3f us a link\n", k, s[k] / n[k] / l * 1e6 }' "$RESULTS"
    ratio rank1 round
    ratio rank1_iteration round
    ;;
  --dist)
    K=$2
    PAGES=$3
    need_space 8 "$PAGES"
    build "$PAGES" "$WORK/db"
    conf=$WORK/k$K.conf
    rm -rf "$WORK/k$K" "$conf"
    "$DISTWRITER" init-local --writers "$K" --root "$WORK/k$K" --out "$conf" > /dev/null
    "$DISTWRITER" create --config "$conf"
    for phase in 0 1 2 3; do
      gen "$PAGES" "$phase" | "$DISTWRITER" launch --config "$conf" --memory "$MEMORY" --quiet - \
        > /dev/null
    done
    sync
    rank single "$WORK/db" --iterations 10 --epsilon 0
    timed "k$K" "$WEBDB" rank --config "$conf" --iterations 10 --epsilon 0 --memory "$MEMORY" \
      --quiet
    for t in pagesByURL pagesByMD5; do
      cmp <("$WEBDB" dump "$WORK/db" --table $t) <("$WEBDB" dump --config "$conf" --table $t)
    done
    rm -rf "$WORK/db" "$WORK/k$K" "$conf"
    echo "pages $PAGES, --memory $MEMORY a writer, ten iterations; the page tables of both are equal"
    report
    ratio "k$K" single
    ;;
  *)
    PAGES=${1:-100000}
    RUNS=${2:-3}
    need_space 12 "$PAGES"
    CALLS=$WORK/calls-$PAGES
    if [ ! -f "$CALLS/4.jsonl" ]; then
      mkdir -p "$CALLS"
      for phase in 0 1 2 3 4; do gen "$PAGES" "$phase" > "$CALLS/$phase.jsonl"; done
    fi
    BASE=$WORK/base-$PAGES
    rm -rf "$BASE"
    "$WEBDB" create "$BASE"
    for phase in 0 1 2 3; do "$WEBDB" apply "$BASE" "$CALLS/$phase.jsonl" --memory "$MEMORY" --quiet; done
    JBASE=$WORK/original-$PAGES
    if [ "$ORIGINAL" = 1 ]; then
      rm -rf "$JBASE"
      for phase in 0 1 2 3; do
        "$ANCHOR/run.sh" "$JBASE" "$CALLS/$phase.jsonl" > /dev/null 2>> "$WORK/original.log"
      done
    fi
    sync
    for run in $(seq 1 "$RUNS"); do
      rm -rf "$WORK/db" && cp -al "$BASE" "$WORK/db" && sync
      rank rank1 "$WORK/db" --iterations 1
      rm -rf "$WORK/db" && cp -al "$BASE" "$WORK/db" && sync
      timed round "$WEBDB" apply "$WORK/db" "$CALLS/4.jsonl" --memory "$MEMORY" --quiet
      if [ "$ORIGINAL" = 1 ]; then
        # The original ranks in place: a copy of its db each time.
        rm -rf "$WORK/jdb" && cp -r "$JBASE" "$WORK/jdb" && sync
        timed original "$ANCHOR/rank.sh" "$WORK/jdb"
      fi
    done
    rm -rf "$WORK/db" "$WORK/jdb"
    echo "pages $PAGES ($("$WEBDB" stats --quick "$BASE" | grep -o '"pages":[0-9]*,"links":[0-9]*')), $RUNS runs, --memory $MEMORY"
    report
    if [ "$ORIGINAL" = 1 ]; then
      ratio original rank1
      ratio original rank1_iteration
    fi
    ratio rank1 round
    ratio rank1_iteration round
    ;;
esac
