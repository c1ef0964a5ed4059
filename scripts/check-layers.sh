#!/usr/bin/env bash
# Fails when a module, or a layer of webdb/, includes from one above it (STYLE.md,
# docs/DESIGN.md):
#   nutchfs <- webdb <- distwriter, crawl <- tools, and fuzz/ above them all;
#   inside webdb/: util <- table <- sort <- stages <- calls <- db <- rank <- inspect.
# Each rule below is a module (or layer) and the ones it may include from besides itself.
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
layers=(util table sort stages calls db rank inspect)
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

# webdb/'s layers: every unit lives in one, and includes only from its own or lower ones.
for f in webdb/*.h webdb/*.cc; do
  [ -e "$f" ] || continue
  echo "layering: $f is in no layer of webdb/ (${layers[*]})" >&2
  bad=1
done
for i in "${!layers[@]}"; do
  layer=${layers[$i]}
  [ -d "webdb/$layer" ] || { echo "layering: webdb/$layer is missing" >&2; bad=1; continue; }
  below=" ${layers[*]:0:$((i + 1))} "
  while IFS= read -r hit; do
    target=$(sed -E 's|.*#include "webdb/([a-z_]+)/.*|\1|' <<<"$hit")
    case "$below" in *" $target "*) continue ;; esac
    echo "layering: $hit (layer $layer may not include from webdb/$target)" >&2
    bad=1
  done < <(grep -rnE '^#include "webdb/' "webdb/$layer" || true)
done
for d in webdb/*/; do
  case " ${layers[*]} " in *" $(basename "$d") "*) ;; *)
    echo "layering: webdb/$(basename "$d") is not a known layer (${layers[*]})" >&2
    bad=1 ;;
  esac
done
[ $bad -eq 0 ] && echo "layering: ok"
exit $bad
