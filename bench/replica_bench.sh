#!/usr/bin/env bash
# replica_bench.sh: the cost of replicated sections (docs/DISTRIBUTED.md, "Replicas") on a
# round: the issue-2 workload applied by k = 3 writers on three simulated hosts
# (scripts/testhosts.sh: network namespaces with their own sshd; needs root), each
# started by `distwriter launch`, with replicas = 1 and replicas = 2, over SFTP and
# through one shared directory (the NFS stand-in), all in the same run.
#
#   bench/replica_bench.sh [PAGES] [ROUNDS]      (defaults: 100000 3)
#   env: BUILD (default build-pgo, as `scripts/setup.sh --pgo` makes it: bench/build.sh),
#   WORK (default /tmp/replica_bench), MEMORY (256M)
#
# Output, on stdout: one line per transport, R and phase,
#   RESULT {"transport":"sftp","replicas":2,"phase":"round-1","seconds":...,"calls":...}
# then each launch report, and per transport the db's bytes on all machines, and the
# ratio R = 2 / R = 1 of the rounds' total seconds.
set -euo pipefail

PAGES=${1:-100000}
ROUNDS=${2:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/build.sh"
bench_build tools/distwriter bench/webdb_bench
WORK=${WORK:-/tmp/replica_bench}
MEMORY=${MEMORY:-256M}
DISTWRITER=$BUILD/tools/distwriter
HOSTS=$WORK/hosts

rm -rf "$WORK"
mkdir -p "$WORK"
"$BUILD/bench/webdb_bench" --pages "$PAGES" --rounds "$ROUNDS" --emit-json "$WORK/calls" >&2
PHASES=(load)
for r in $(seq 1 "$ROUNDS"); do PHASES+=("round-$r"); done

"$ROOT/scripts/testhosts.sh" up "$HOSTS" 3 >&2
trap '"$ROOT/scripts/testhosts.sh" down "$HOSTS" >&2' EXIT
source "$HOSTS/hosts.env"

now() { date +%s%N; }

# config TRANSPORT R: the config of three writers, one per host, each machine's root a
# fresh directory of its own for this transport and R.
config() {
  local i addr root
  printf 'db = crawl\nwriters = 3\nreplicas = %s\ntimeout_ms = 600000\n' "$2"
  [ "$1" = sftp ] && printf 'ssh_identity = %s\nssh_known_hosts = %s\n' "$CLIENT_KEY" "$KNOWN_HOSTS"
  for i in 0 1 2; do
    addr=H${i}_ADDR
    root=H${i}_ROOT
    if [ "$1" = sftp ]; then
      printf '[machine.h%s]\nlocation = root@%s:22:%s/%s-r%s\n' "$i" "${!addr}" "${!root}" "$1" "$2"
    else
      printf '[machine.h%s]\nlocation = %s/%s-r%s/h%s\n' "$i" "$SHARED_DIR" "$1" "$2" "$i"
    fi
  done
  for i in 0 1 2; do printf '[writer.%s]\nmachine = h%s\n' "$i" "$i"; done
}

for transport in sftp shared; do
  declare -A total=()
  for r in 1 2; do
    conf=$WORK/$transport-r$r.conf
    config "$transport" "$r" > "$conf"
    "$DISTWRITER" create --config "$conf" >&2
    total[$r]=0
    for p in "${PHASES[@]}"; do
      t0=$(now)
      "$DISTWRITER" launch --config "$conf" --memory "$MEMORY" --quiet \
        "$WORK/calls/$p.jsonl" > "$WORK/$transport-r$r-$p.report"
      t1=$(now)
      [ "$p" = load ] || total[$r]=$(( total[$r] + t1 - t0 ))
      awk -v t="$transport" -v r="$r" -v p="$p" -v s="$(( t1 - t0 ))" \
        -v c="$(wc -l < "$WORK/calls/$p.jsonl")" 'BEGIN {
        printf "RESULT {\"transport\":\"%s\",\"replicas\":%d,\"phase\":\"%s\",", t, r, p
        printf "\"seconds\":%.3f,\"calls\":%d}\n", s / 1e9, c }'
      sed 's/^/  /' "$WORK/$transport-r$r-$p.report"
    done
    if [ "$transport" = sftp ]; then
      bytes=$(du -scb "$H0_ROOT/sftp-r$r" "$H1_ROOT/sftp-r$r" "$H2_ROOT/sftp-r$r" | tail -1 | cut -f1)
    else
      bytes=$(du -sb "$SHARED_DIR/shared-r$r" | cut -f1)
    fi
    echo "$transport R=$r db: $bytes bytes on all machines"
  done
  awk -v t="$transport" -v a="${total[1]}" -v b="${total[2]}" 'BEGIN {
    printf "%s rounds R=2 / R=1: %.2f (%.3f s / %.3f s)\n", t, b / a, b / 1e9, a / 1e9 }'
  unset total
done
