#!/usr/bin/env bash
# WARC -> db throughput of `webdb update` (docs/PERFORMANCE.md, "Crawl update").
# Usage: bench/crawl_bench.sh [WARC]   (as root)
# env: BUILD (default build-pgo, as `scripts/setup.sh --pgo` makes it: bench/build.sh), WORK (default a new /tmp/webdb-crawl-bench.XXXXXX), RUNS
# (default 3).
# Without WARC it first crawls Debian's libboost1.74-doc served on 127.0.0.1 inside a
# private network namespace (only lo) with `wget -r` into $WORK/boost.warc.gz. Then it
# applies the WARC to a fresh db RUNS times and prints, per run, the whole-process
# figures of /usr/bin/time and the split that update reports (read = decompression and
# WARC framing, http = HTTP parse and content decoding, links = HTML parse, link
# resolution and normalization, calls = logging calls, apply = the writer's merge).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build.sh
bench_build tools/webdb
webdb=$BUILD/tools/webdb
runs=${RUNS:-3}
work=${WORK:-$(mktemp -d /tmp/webdb-crawl-bench.XXXXXX)}
mkdir -p "$work"
warc=${1:-$work/boost.warc.gz}
if [ ! -f "$warc" ]; then
  docs=/usr/share/doc/libboost1.74-doc
  [ -d "$docs" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libboost1.74-doc
  echo "== crawling $docs to $warc"
  unshare --net -- bash -c '
    set -u
    ip link set lo up
    python3 -m http.server --bind 127.0.0.1 --directory "$1" 8000 >/dev/null 2>&1 &
    server=$!
    for _ in $(seq 100); do wget -q -O /dev/null http://127.0.0.1:8000/ && break; sleep 0.1; done
    # exit 4/8: links to other hosts (no network here) and 404s are expected
    wget -q -r -l inf --tries=1 --max-redirect=0 -P "$2/dl" --delete-after \
      --warc-file="${3%.warc.gz}" http://127.0.0.1:8000/doc/html/index.html || true
    kill $server' _ "$docs" "$work" "$warc"
fi
echo "== $warc: $(stat -c %s "$warc") bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$runs"); do
  rm -rf "$work/db"
  $webdb create "$work/db"
  report=$(/usr/bin/time -f '%U %S %e %M' -o "$work/time" $webdb update -q "$work/db" "$warc")
  read -r user sys wall rss <"$work/time"
  html=$(grep -o '"html":[0-9]*' <<<"$report" | cut -d: -f2)
  bytes=$(grep -o '"htmlBytes":[0-9]*' <<<"$report" | cut -d: -f2)
  awk -v u="$user" -v s="$sys" -v w="$wall" -v m="$rss" -v h="$html" -v b="$bytes" 'BEGIN {
    cpu = u + s  # in ticks: a tiny run may take none, and has no rates then
    rates = cpu > 0 ? sprintf("%.0f HTML pages/s and %.1f MB/s per cpu second", h / cpu, b / 1e6 / cpu) : "-"
    printf "run: %d HTML pages, %.1f MB HTML; cpu %.2f s, wall %.2f s, max RSS %d MB; %s\n",
      h, b / 1e6, cpu, w, m / 1024, rates }'
  grep -o '"seconds".*' <<<"$report"
done
