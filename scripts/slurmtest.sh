#!/usr/bin/env bash
# A one-node Slurm cluster for tests, in a scratch directory (docs/TEST-HOSTS.md, "Slurm"):
# munged, slurmctld and slurmd as root, with their own sockets, ports, state, spool,
# logs and pid files below DIR, nothing of the system's Slurm or munge touched.
#
#   scripts/slurmtest.sh up DIR      # start; returns once the node is idle; DIR/slurm.env
#   scripts/slurmtest.sh down DIR    # cancel every job, stop the daemons, remove DIR
#
# One node: several slurmd daemons cannot run on one machine here, so the node claims
# 8 CPUs (SlurmdParameters=config_overrides) and OverSubscribe=FORCE lets tasks share it.
# `up` fails (exit 1, with the daemons' logs) when a daemon does not start; it then
# tears down what it made. The daemons meet at 127.0.0.1, so the machine's name need not
# resolve (a fresh root's /etc/hosts may not name it). `down` kills only the pids
# recorded in DIR whose command line names DIR, and is safe on a half-built DIR.
set -euo pipefail

die() {
  echo "slurmtest: $*" >&2
  exit 1
}

# A TCP port nothing listens on, from a range the system does not hand out itself.
free_port() {
  local port
  for _ in $(seq 200); do
    port=$((20000 + RANDOM % 10000))
    if ! ss -Hltn "sport = :$port" | grep -q .; then
      echo "$port"
      return
    fi
  done
  die "no free port found in 20000..29999"
}

write_conf() {
  local dir=$1 node=$2 ctld_port=$3 slurmd_port=$4
  cat >"$dir/slurm.conf" <<CONF
ClusterName=webdbtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
AuthInfo=socket=$dir/munge/sock
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
}

logs() {
  local dir=$1 f
  for f in munge/log slurmctld.log slurmd.log; do
    [ -f "$dir/$f" ] && { echo "--- $dir/$f"; tail -n 20 "$dir/$f"; }
  done
  true
}

cmd_up() {
  [ $# -eq 1 ] || die "usage: slurmtest.sh up DIR"
  local dir node state
  dir=$(realpath -m "$1")
  [ "$(id -u)" -eq 0 ] || die "must run as root (slurmd and munged run as root)"
  for b in munged slurmctld slurmd sinfo srun sbatch scontrol squeue scancel; do
    command -v "$b" >/dev/null || die "'$b' not found (packages slurm-wlm and munge)"
  done
  [ -r /etc/munge/munge.key ] || die "/etc/munge/munge.key missing (package munge makes it)"
  mkdir -p "$dir"
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
  touch "$dir/.slurmtest"
  UP_DIR=$dir
  trap 'if [ -n "${UP_DIR:-}" ]; then echo "slurmtest: up failed, tearing down" >&2; logs "$UP_DIR" >&2; cmd_down "$UP_DIR"; fi' EXIT
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
  node=$(hostname -s)
  write_conf "$dir" "$node" "$(free_port)" "$(free_port)"
  echo "SLURM_CONF=$dir/slurm.conf" >"$dir/slurm.env"
  munged --force -S "$dir/munge/sock" --pid-file="$dir/munge/pid" --log-file="$dir/munge/log" \
    --key-file=/etc/munge/munge.key --seed-file="$dir/munge/seed" ||
    die "munged did not start"
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -c -f "$SLURM_CONF" || die "slurmctld did not start"
  slurmd -f "$SLURM_CONF" || die "slurmd did not start"
  for _ in $(seq 150); do
    state=$(timeout 2 sinfo -h -o %t 2>/dev/null || true)
    if [ "$state" = idle ]; then
      UP_DIR=
      trap - EXIT
      return 0
    fi
    sleep 0.2
  done
  die "the node is not idle after 30 s (sinfo says '${state:-nothing}')"
}

# Kills the process whose pid is in file if its command line names dir; waits for it.
stop_pid() {
  local file=$1 dir=$2 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$dir" || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
}

cmd_down() {
  [ $# -eq 1 ] || die "usage: slurmtest.sh down DIR"
  local dir
  dir=$(realpath -m "$1")
  [ -d "$dir" ] || return 0
  [ -f "$dir/.slurmtest" ] || die "$dir was not made by slurmtest.sh up; not touching it"
  if [ -f "$dir/slurm.conf" ] && [ -f "$dir/slurmctld.pid" ]; then
    SLURM_CONF=$dir/slurm.conf timeout 10 scancel --full --signal=KILL --user=root 2>/dev/null || true
    for _ in $(seq 50); do
      [ -z "$(SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h 2>/dev/null || true)" ] && break
      sleep 0.2
    done
  fi
  stop_pid "$dir/slurmd.pid" "$dir"
  stop_pid "$dir/slurmctld.pid" "$dir"
  stop_pid "$dir/munge/pid" "$dir"
  # The daemons' helper processes end with them: wait, so that none writes into DIR after
  # it is removed.
  for _ in $(seq 100); do
    pgrep -f -- "$dir/" >/dev/null || break
    sleep 0.1
  done
  rm -rf "$dir"
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  *) die "usage: slurmtest.sh up|down DIR" ;;
esac
