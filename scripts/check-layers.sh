#!/usr/bin/env bash
# Fails when a module includes from a module above it (STYLE.md, docs/DESIGN.md):
#   nutchfs <- webdb <- distwriter, crawl <- tools, and fuzz/ above them all
# Each line below is a module and the modules it may include from besides itself.
set -euo pipefail
cd "$(dirname "$0")/.."
allowed=(
  "nutchfs:"
  "webdb:nutchfs"
  "distwriter:nutchfs webdb"
  "crawl:nutchfs webdb"
  "tools:nutchfs webdb distwriter crawl"
  "fuzz:nutchfs webdb distwriter crawl tools"
)
modules="nutchfs webdb distwriter crawl tools fuzz"
bad=0
for rule in "${allowed[@]}"; do
  module=${rule%%:*}
  [ -d "$module" ] || continue
  ok=" $module ${rule#*:} "
  while IFS= read -r hit; do
    target=$(sed -E 's|.*#include "([a-z]+)/.*|\1|' <<<"$hit")
    case " $modules " in *" $target "*) ;; *) continue ;; esac
    case "$ok" in *" $target "*) continue ;; esac
    echo "layering: $hit (module $module may not include from $target)" >&2
    bad=1
  done < <(grep -rnE '^#include "[a-z]+/' "$module" || true)
done
[ $bad -eq 0 ] && echo "layering: ok"
exit $bad
