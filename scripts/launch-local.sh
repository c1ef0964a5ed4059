#!/usr/bin/env bash
# One distributed round with K writer processes on this host.
# Usage: scripts/launch-local.sh K [DISTWRITER-OPTIONS] CALLFILE...
#
# The first time, makes the cluster in $WEBDB_LOCAL (default ./webdb-local-K):
# `distwriter init-local` writes $WEBDB_LOCAL/cluster.conf with K machine roots
# $WEBDB_LOCAL/m0..m(K-1), and `distwriter create` the empty db (with --sample
# $WEBDB_SAMPLE, a file of urls, if set). Every call then runs one round:
# `distwriter launch`. Read the result with `webdb ... --config $WEBDB_LOCAL/cluster.conf`.
# DISTWRITER: the binary (default: build/tools/distwriter of this checkout).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=launch-common.sh
. "$here/launch-common.sh"

[ $# -ge 2 ] || usage_from "$0"
k=$1
shift
if ! [[ $k =~ ^[0-9]+$ ]] || [ "$k" -lt 1 ]; then
  echo "launch-local: K must be a positive number, got '$k'" >&2
  exit 2
fi
bin=$(distwriter_binary "$here")
root=$(realpath -m "${WEBDB_LOCAL:-webdb-local-$k}")
config=$root/cluster.conf

if [ ! -f "$config" ]; then
  "$bin" init-local --writers "$k" --root "$root" --out "$config"
fi
have=$("$bin" config --config "$config" --get writers)
[ "$have" = "$k" ] || { echo "launch-local: $config has $have writers, not $k" >&2; exit 2; }
db=$("$bin" config --config "$config" --get db)
root0=$(writer_machines "$bin" "$config" | head -n 1 | cut -f 7)
if [ ! -e "$root0/$db/meta/CURRENT" ]; then
  "$bin" create --config "$config" ${WEBDB_SAMPLE:+--sample "$WEBDB_SAMPLE"}
fi
exec "$bin" launch --config "$config" "$@"
