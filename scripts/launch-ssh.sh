#!/usr/bin/env bash
# One distributed round on writers reached over ssh (docs/DISTRIBUTED.md, "Running it").
# Usage: scripts/launch-ssh.sh CONFIG [DISTWRITER-OPTIONS] CALLFILE...
#
# Checks first, all at once, that every writer's machine in CONFIG answers ssh with the
# config's ssh_identity and ssh_known_hosts (key login, no prompts) and has the distwriter
# binary at the same path as here, then runs `distwriter launch --config CONFIG CALLFILE...`:
# each slice of the calls is published to its writer's machine and each writer started
# there with ssh. The db must exist (`distwriter create --config CONFIG`).
# DISTWRITER: the binary (default: build/tools/distwriter of this checkout).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=launch-common.sh
. "$here/launch-common.sh"

[ $# -ge 2 ] || usage_from "$0"
config=$(config_path "$1")
shift
bin=$(distwriter_binary "$here")

identity=$("$bin" config --config "$config" --get ssh_identity)
known_hosts=$("$bin" config --config "$config" --get ssh_known_hosts)
ssh_opts=(-n -o BatchMode=yes -o ConnectTimeout=10)
[ -z "$identity" ] || ssh_opts+=(-i "$identity")
[ -z "$known_hosts" ] || ssh_opts+=(-o "UserKnownHostsFile=$known_hosts")

# Checks one writer's machine; prints why it is not usable and fails.
check_writer() {
  local writer=$1 machine=$2 scheme=$3 host=$4 port=$5 user=$6 root=$7 login out
  if [ "$scheme" != ssh ]; then
    echo "launch-ssh: writer $writer (machine $machine): '$root' is not a user@host[:port]:/root location" >&2
    return 1
  fi
  login=$host
  [ "$user" = - ] || login=$user@$host
  if ! out=$(ssh "${ssh_opts[@]}" -p "$port" "$login" "test -x '$bin' || echo 'no executable $bin'" 2>&1); then
    echo "launch-ssh: writer $writer (machine $machine): ssh -p $port $login failed: $out" >&2
    return 1
  fi
  if [ -n "$out" ]; then
    echo "launch-ssh: writer $writer (machine $machine, $login): $out" >&2
    return 1
  fi
}

writers=$(writer_machines "$bin" "$config")
pids=()
while IFS=$'\t' read -r writer machine scheme host port user root; do
  check_writer "$writer" "$machine" "$scheme" "$host" "$port" "$user" "$root" &
  pids+=($!)
done <<<"$writers"
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" = 0 ] || exit 1
exec "$bin" launch --config "$config" "$@"
