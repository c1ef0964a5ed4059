#!/usr/bin/env bash
# Sets up everything on a fresh Debian 12 machine (as root), then runs the main job: a
# real crawl. The Boost documentation (Debian's libboost1.74-doc) is served on 127.0.0.1
# inside a private network namespace whose only interface is lo, so nothing leaves the
# machine; three cycles of inject -> rank -> generate -> wget -i (WARC) -> update run
# against a 3-writer distributed db, and the same WARCs are fed to a single-machine db,
# which must come out identical (docs/CRAWL.md). Every cycle ends with `webdb verify`.
# At the end, the best-ranked pages are listed with their inlinks: generate picks them
# first.
# `unshare --net -- scripts/run-example.sh --in-netns` runs the crawl alone, on the tools
# of BUILD (default build/) and in WORK (default a new directory in /tmp): the test
# suite runs it so (test/tools/run_example_test.cc).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != "--in-netns" ]; then
  scripts/setup.sh webdb_tool distwriter_tool  # its packages include libboost1.74-doc
  exec unshare --net -- "$0" --in-netns
fi

ip link set lo up
links=$(ip -o link show | awk -F': ' '{print $2}' | tr '\n' ' ')
[ "$links" = "lo " ] || { echo "network namespace has more than lo: $links" >&2; exit 4; }

bin=${BUILD:-build}/tools
# webdb's --config forms start the distwriter found through PATH (the config names none).
PATH="$(cd "$bin" && pwd):$PATH"
docs=/usr/share/doc/libboost1.74-doc
port=8000
site="http://127.0.0.1:$port"
work=${WORK:-$(mktemp -d /tmp/webdb-crawl.XXXXXX)}
mkdir -p "$work"
echo "== crawl of $site (Boost docs) in $work; network: $links"

python3 -m http.server --bind 127.0.0.1 --directory "$docs" "$port" >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  wget -q -O /dev/null "$site/" && break
  sleep 0.1
done

echo "$site/doc/html/index.html" >"$work/seeds.txt"
printf '%s\n' "# stay on the served site" "+^http://127\\.0\\.0\\.1:$port/" >"$work/filter.txt"
conf="$work/cluster.conf"
$bin/distwriter init-local --writers 3 --root "$work/cluster" --out "$conf"
$bin/distwriter create --config "$conf" --sample "$work/seeds.txt"
$bin/webdb create "$work/single"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
field() { grep -o "\"$1\":[0-9]*" <<<"$2" | head -1 | cut -d: -f2; }
pages() { field pages "$($bin/webdb stats --config "$conf")"; }
# webdb verify on each db, after every cycle: exit 3 and the findings if one is damaged.
verify_all() {
  $bin/webdb verify -q "$work/single"
  $bin/webdb verify -q --config "$conf"
}

printf '%-5s %8s %8s %8s %8s %8s %8s | %7s %7s %7s %7s %7s %7s\n' cycle fetched failed new links due total \
  inject rank generate wget update verify
for cycle in 1 2 3; do
  before=$(pages)
  t0=$(now)
  $bin/webdb inject -q --config "$conf" --filter "$work/filter.txt" "$work/seeds.txt" >/dev/null
  $bin/webdb inject -q "$work/single" --filter "$work/filter.txt" "$work/seeds.txt" >/dev/null
  t1=$(now)
  # Link analysis before generate, so that the fetch list starts with the best-linked pages.
  $bin/webdb rank -q --config "$conf"
  $bin/webdb rank -q "$work/single"
  tr=$(now)
  $bin/webdb generate -q --config "$conf" --top 1000000 --out "$work/fetch-$cycle.txt"
  $bin/webdb generate -q "$work/single" --top 1000000 --out "$work/fetch-single-$cycle.txt"
  cmp "$work/fetch-$cycle.txt" "$work/fetch-single-$cycle.txt"
  due=$(wc -l <"$work/fetch-$cycle.txt")
  t2=$(now)
  rc=0
  # A dropped connection is retried; what still fails is a crawl outcome, not a failed
  # example: 4 network failures (links to other hosts: only lo here), 8 some 404s.
  wget -q --tries=3 --waitretry=1 --retry-connrefused --max-redirect=0 \
    -i "$work/fetch-$cycle.txt" -O /dev/null --warc-file="$work/crawl-$cycle" || rc=$?
  case $rc in 0 | 4 | 8) ;; *) echo "wget failed: exit $rc" >&2; exit 4 ;; esac
  t3=$(now)
  update=(--filter "$work/filter.txt" --fetchlist "$work/fetch-$cycle.txt"
    "$work/crawl-$cycle.warc.gz")
  report=$($bin/webdb update -q --config "$conf" "${update[@]}")
  $bin/webdb update -q "$work/single" "${update[@]}" >/dev/null
  t4=$(now)
  verify_all
  t5=$(now)
  after=$(pages)
  printf '%-5s %8s %8s %8s %8s %8s %8s | %6ss %6ss %6ss %6ss %6ss %6ss\n' "$cycle" \
    "$(field pagesFetched "$report")" "$(field networkFailures "$report")" "$((after - before))" "$(field links "$report")" "$due" \
    "$after" "$(secs "$t0" "$t1")" "$(secs "$t1" "$tr")" "$(secs "$tr" "$t2")" "$(secs "$t2" "$t3")" \
    "$(secs "$t3" "$t4")" "$(secs "$t4" "$t5")"
done
echo "(fetched: pages in the cycle's WARC; failed: fetch list URLs wget wrote no record for"
echo " (network failures, retried in a later cycle); new: pages added to the db; links: outlinks of the"
echo " fetched pages; due: the cycle's fetch list; steps timed for both dbs together;"
echo " verify: webdb verify of the single-machine db and of the distributed db)"

# The last update's scores ranked too, so that the dbs are compared as the next cycle
# would generate from them.
$bin/webdb rank -q --config "$conf"
$bin/webdb rank -q "$work/single"
echo "== distributed db"
$bin/webdb stats --config "$conf"
echo "== single-machine db, same WARCs"
$bin/webdb stats "$work/single"
for t in pagesByURL pagesByMD5 linksByMD5 linksByURL; do
  $bin/webdb dump --config "$conf" --table $t >"$work/dist-$t.jsonl"
  $bin/webdb dump "$work/single" --table $t >"$work/single-$t.jsonl"
  cmp "$work/dist-$t.jsonl" "$work/single-$t.jsonl"
done
echo "== all four tables identical: the 3-writer crawl db equals the single-machine db"

# The pages generate would hand out first (all pages taken as due: --now is the latest
# time before 'never', 2^63-2 ms, and a lease of 0 days ends there), each with its score
# and the number of links to it: the best-linked pages lead the fetch list.
$bin/webdb generate -q --config "$conf" --top 8 --now 9223372036854775806 --lease-days 0 --dry-run \
  --out "$work/top.txt"
echo "== the first pages of a fetch list after rank (score, inlinks, url)"
while read -r url; do
  score=$($bin/webdb page --config "$conf" "$url" | grep -o '"score":[^,]*' | cut -d: -f2)
  printf '%10s %7s  %s\n' "$score" "$($bin/webdb links --config "$conf" --url "$url" | wc -l)" "$url"
done <"$work/top.txt"
