#!/usr/bin/env bash
# One distributed round on a config whose machines are directories of a shared (NFS) mount.
# Usage: scripts/launch-nfs.sh CONFIG [DISTWRITER-OPTIONS] CALLFILE...
#
# Checks first that every writer's root is a local path here whose directory (or, before
# `distwriter create`, nearest existing parent) is writable, and names the mount and file
# system it is on; then runs `distwriter launch --config CONFIG CALLFILE...`. The roots
# are paths, so launch runs all k writers as processes of this host, each reaching the
# others' roots through the mount (docs/DISTRIBUTED.md, "Running it", for one writer
# per host). DISTWRITER: the binary (default: build/tools/distwriter).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=launch-common.sh
. "$here/launch-common.sh"

[ $# -ge 2 ] || usage_from "$0"
config=$(config_path "$1")
shift
bin=$(distwriter_binary "$here")

writers=$(writer_machines "$bin" "$config")
failed=0
while IFS=$'\t' read -r writer machine scheme host port user root; do
  if [ "$scheme" != local ]; then
    location=$host
    [ "$user" = - ] || location=$user@$location
    [ "$port" = 22 ] || location=$location:$port
    location=$location:$root
    echo "launch-nfs: writer $writer (machine $machine): '$location' is not a local path" >&2
    failed=1
    continue
  fi
  dir=$root
  while [ ! -d "$dir" ]; do dir=$(dirname "$dir"); done
  if [ ! -w "$dir" ]; then
    echo "launch-nfs: writer $writer (machine $machine): $dir is not writable (mounted?)" >&2
    failed=1
    continue
  fi
  echo "launch-nfs: writer $writer (machine $machine): $root on" \
    "$(findmnt -n -o TARGET,FSTYPE -T "$dir" | tr -s ' ')" >&2
done <<<"$writers"
[ "$failed" = 0 ] || exit 1
exec "$bin" launch --config "$config" "$@"
