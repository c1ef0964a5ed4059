#!/usr/bin/env bash
# Sets up everything on a fresh Debian 12 machine (as root), then runs the main job on the
# bundled example: a real 3-writer distributed update (three writer processes exchanging
# edit files through NutchFS), checked against the single-machine writer on the same calls.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh webdb distwriter
work=${WORK:-$(mktemp -d /tmp/webdb-example.XXXXXX)}
bin=build
calls=scripts/example/calls.jsonl
echo "== example in $work"
$bin/tools/distwriter init-local --writers 3 --root "$work/cluster" --out "$work/cluster.conf"
$bin/tools/distwriter create --config "$work/cluster.conf" --sample scripts/example/sample-urls.txt
$bin/tools/distwriter launch --config "$work/cluster.conf" "$calls"
echo "== distributed db"
$bin/tools/webdb stats --config "$work/cluster.conf"
echo "== single-machine db, same calls"
$bin/tools/webdb create "$work/single"
$bin/tools/webdb apply --quiet "$work/single" "$calls"
$bin/tools/webdb stats "$work/single"
for t in pagesByURL pagesByMD5 linksByMD5 linksByURL; do
  cmp <($bin/tools/webdb dump --config "$work/cluster.conf" --table $t) \
      <($bin/tools/webdb dump "$work/single" --table $t)
done
echo "== all four tables identical: the 3-writer result equals the single-machine result"
