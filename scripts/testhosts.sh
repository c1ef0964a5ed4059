#!/usr/bin/env bash
# Simulated machines for tests: each host is a network namespace with its own sshd.
# See docs/TEST-HOSTS.md for the layout and how tests use it.
#
#   testhosts.sh up DIR N                 create hosts h0..h(N-1), state in DIR
#   testhosts.sh down DIR                 remove everything "up" created (idempotent)
#   testhosts.sh exec DIR HOST CMD...     run CMD "on" HOST (its netns + mount namespace)
#   testhosts.sh stop DIR HOST            kill HOST's sshd and its open sessions (SIGKILL)
#   testhosts.sh start DIR HOST           start HOST's sshd again and wait until it answers
#   testhosts.sh link DIR HOST up|down    connect or cut HOST's network link
#   testhosts.sh sshfs DIR HOST MOUNTPOINT [REMOTE_DIR [SSHFS_OPTS]]
#                                         mount HOST's root (or REMOTE_DIR) via sshfs in
#                                         the caller's namespace; "down" unmounts it
#
# HOST is a name (h1) or an index (1). Must run as root.
set -euo pipefail

readonly NET=10.77          # hosts get 10.77.X.(i+1), the caller 10.77.X.254
readonly LOCK=/run/nutchfs-testhosts.lock
readonly SSHD=/usr/sbin/sshd

die() {
  echo "testhosts: $*" >&2
  exit 1
}

usage() {
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# A namespace prefix unique to DIR, so several set-ups can coexist.
prefix_for() {
  printf 'nt%s' "$(printf '%s' "$1" | md5sum | cut -c1-7)"
}

load_env() {
  [ -f "$1/hosts.env" ] || die "$1/hosts.env missing: run 'up' first"
  # shellcheck disable=SC1091
  . "$1/hosts.env"
}

# Sets H (index) from a host name or index.
parse_host() {
  local h=${1#h}
  [[ $h =~ ^[0-9]+$ ]] && [ "$h" -lt "$TESTHOSTS_N" ] || die "no host '$1' in $TESTHOSTS_DIR"
  H=$h
}

host_var() {
  local name="H${H}_$1"
  printf '%s' "${!name}"
}

# Third octet of 10.77.X.0/24 that no interface of this namespace uses yet.
pick_octet() {
  local used o
  used=$(ip -4 -o addr show | awk '{print $4}' | grep -oE "^${NET//./\\.}\.[0-9]+" |
    cut -d. -f3 || true)
  for o in $(seq 0 255); do
    if ! grep -qx "$o" <<<"$used"; then
      echo "$o"
      return 0
    fi
  done
  die "all of ${NET}.0.0/16 is in use"
}

write_sshd_config() {
  local dir=$1 i=$2 addr=$3
  cat >"$dir/h$i/sshd_config" <<EOF
Port 22
ListenAddress $addr
HostKey $dir/h$i/ssh_host_ed25519_key
PidFile none
AuthorizedKeysFile $dir/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
UseDNS no
PrintMotd no
X11Forwarding no
Subsystem sftp internal-sftp
MaxStartups 100:30:200
MaxSessions 100
LogLevel ERROR
EOF
}

# Runs "$@" inside host i's network namespace and a private mount namespace in which
# the host's root and the shared directory are separate bind mounts (so rename()
# between them fails with EXDEV, as between NFS mounts). Paths stay the same.
# Replaces the calling (sub)shell, so "in_host ... &" leaves the command's pid in $!.
in_host() {
  local dir=$1 i=$2
  shift 2
  TESTHOSTS_HOST=h$i TESTHOSTS_ROOT="$dir/h$i/root" TESTHOSTS_SHARED="$dir/shared" \
    exec ip netns exec "$(prefix_for "$dir")-h$i" \
    unshare -m --propagation private \
    sh -c 'mount --bind "$1" "$1" && mount --bind "$2" "$2" && shift 2 && exec "$@"' \
    sh "$dir/h$i/root" "$dir/shared" "$@"
}

start_sshd() {
  local dir=$1 i=$2 pid
  mkdir -p /run/sshd
  in_host "$dir" "$i" "$SSHD" -D -e -f "$dir/h$i/sshd_config" \
    </dev/null >>"$dir/h$i/sshd.log" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$dir/h$i/sshd.pid"
}

# Waits until the sshd of host i sends its banner to a client in this namespace.
wait_sshd() {
  local dir=$1 i=$2 addr=$3 pid n
  pid=$(cat "$dir/h$i/sshd.pid")
  for n in $(seq 100); do
    if ! kill -0 "$pid" 2>/dev/null; then
      die "sshd of h$i exited; log $dir/h$i/sshd.log: $(cat "$dir/h$i/sshd.log")"
    fi
    if timeout 1 bash -c "exec 3<>/dev/tcp/$addr/22 && head -c 4 <&3" 2>/dev/null |
      grep -q SSH-; then
      return 0
    fi
    sleep 0.1
  done
  die "sshd of h$i at $addr:22 did not answer within 10 s"
}

# Pids of pid's descendants, deepest last.
descendants() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null || true); do
    echo "$c"
    descendants "$c"
  done
}

# True while pid runs (a zombie, which nobody may reap here, counts as gone).
alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# Kills the sshd recorded in pidfile and its session processes, if it is still ours.
kill_sshd() {
  local pidfile=$1 dir=$2 pid p all n
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  rm -f "$pidfile"
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 0
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$dir/" || return 0
  all="$pid $(descendants "$pid")"
  for p in $all; do kill -KILL "$p" 2>/dev/null || true; done
  for n in $(seq 50); do
    for p in $all; do
      if alive "$p"; then
        sleep 0.02
        continue 2
      fi
    done
    return 0
  done
}

write_hosts_env() {
  local dir=$1 n=$2 octet=$3 prefix i
  prefix=$(prefix_for "$dir")
  {
    echo "TESTHOSTS_DIR=$dir"
    echo "TESTHOSTS_PREFIX=$prefix"
    echo "TESTHOSTS_N=$n"
    echo "CLIENT_ADDR=$NET.$octet.254"
    echo "CLIENT_KEY=$dir/client_key"
    echo "KNOWN_HOSTS=$dir/known_hosts"
    echo "SHARED_DIR=$dir/shared"
    for i in $(seq 0 $((n - 1))); do
      echo "H${i}_NAME=h$i"
      echo "H${i}_NETNS=$prefix-h$i"
      echo "H${i}_ADDR=$NET.$octet.$((i + 1))"
      echo "H${i}_PORT=22"
      echo "H${i}_ROOT=$dir/h$i/root"
      echo "H${i}_HOST_KEY=$dir/h$i/ssh_host_ed25519_key"
    done
  } >"$dir/hosts.env"
}

# The bridge namespace and the caller's veth, with a subnet chosen under a lock.
make_bridge() {
  local dir=$1 prefix=$2 octet
  exec 9>"$LOCK"
  flock 9
  octet=$(pick_octet)
  ip netns add "$prefix-br"
  ip -n "$prefix-br" link set lo up
  ip -n "$prefix-br" link add br0 type bridge
  ip -n "$prefix-br" link set br0 up
  ip link add "$prefix-c" type veth peer name c0 netns "$prefix-br"
  ip -n "$prefix-br" link set c0 master br0 up
  ip addr add "$NET.$octet.254/24" dev "$prefix-c"
  ip link set "$prefix-c" up
  flock -u 9
  exec 9>&-
  echo "$octet" >"$dir/octet"
}

make_host() {
  local dir=$1 prefix=$2 i=$3 addr=$4 ns
  ns=$prefix-h$i
  mkdir -p "$dir/h$i/root"
  ssh-keygen -q -t ed25519 -N '' -C "h$i" -f "$dir/h$i/ssh_host_ed25519_key"
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip link add eth0 netns "$ns" type veth peer name "v$i" netns "$prefix-br"
  ip -n "$prefix-br" link set "v$i" master br0 up
  ip -n "$ns" addr add "$addr/24" dev eth0
  ip -n "$ns" link set eth0 up
  write_sshd_config "$dir" "$i" "$addr"
  echo "$addr $(cut -d' ' -f1,2 "$dir/h$i/ssh_host_ed25519_key.pub")" >>"$dir/known_hosts"
}

cmd_up() {
  [ $# -eq 2 ] || usage
  local dir n prefix octet i
  dir=$(realpath -m "$1")
  n=$2
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] || die "N must be 1..200, got '$n'"
  [ "$(id -u)" -eq 0 ] || die "must run as root (network namespaces, sshd)"
  command -v ip >/dev/null || die "'ip' (iproute2) not found"
  [ -x "$SSHD" ] || die "$SSHD not found (package openssh-server)"
  mkdir -p "$dir"
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
  prefix=$(prefix_for "$dir")
  echo "$prefix" >"$dir/.testhosts"
  UP_DIR=$dir
  trap 'if [ -n "${UP_DIR:-}" ]; then echo "testhosts: up failed, tearing down" >&2; cmd_down "$UP_DIR"; fi' EXIT

  mkdir -p "$dir/shared"
  ssh-keygen -q -t ed25519 -N '' -C testhosts-client -f "$dir/client_key"
  cp "$dir/client_key.pub" "$dir/authorized_keys"
  : >"$dir/known_hosts"
  make_bridge "$dir" "$prefix"
  octet=$(cat "$dir/octet")
  for i in $(seq 0 $((n - 1))); do
    make_host "$dir" "$prefix" "$i" "$NET.$octet.$((i + 1))"
  done
  write_hosts_env "$dir" "$n" "$octet"
  for i in $(seq 0 $((n - 1))); do start_sshd "$dir" "$i"; done
  for i in $(seq 0 $((n - 1))); do wait_sshd "$dir" "$i" "$NET.$octet.$((i + 1))"; done
  UP_DIR=
  echo "$dir/hosts.env"
}

cmd_down() {
  [ $# -eq 1 ] || usage
  local dir prefix pid mp ns f
  dir=$(realpath -m "$1")
  [ -e "$dir" ] || return 0
  [ -f "$dir/.testhosts" ] || die "$dir was not made by 'testhosts.sh up'; not touching it"
  prefix=$(prefix_for "$dir")
  if [ -f "$dir/sshfs.list" ]; then
    while read -r pid mp; do
      fusermount3 -u -z "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null || true
      kill "$pid" 2>/dev/null || true
    done <"$dir/sshfs.list"
    rm -f "$dir/sshfs.list"
  fi
  for f in "$dir"/h*/sshd.pid; do
    [ -e "$f" ] && kill_sshd "$f" "$dir"
  done
  for ns in $(ip netns list | awk '{print $1}' | grep "^$prefix-" || true); do
    ip netns del "$ns" 2>/dev/null || true
  done
  ip link del "$prefix-c" 2>/dev/null || true
  if [ "${TESTHOSTS_KEEP:-0}" = 1 ]; then
    echo "testhosts: TESTHOSTS_KEEP=1, leaving $dir" >&2
  else
    rm -rf "$dir"
  fi
}

cmd_exec() {
  [ $# -ge 3 ] || usage
  local dir
  dir=$(realpath -m "$1")
  load_env "$dir"
  parse_host "$2"
  shift 2
  in_host "$dir" "$H" "$@"
}

cmd_stop() {
  [ $# -eq 2 ] || usage
  local dir
  dir=$(realpath -m "$1")
  load_env "$dir"
  parse_host "$2"
  kill_sshd "$dir/h$H/sshd.pid" "$dir"
}

cmd_start() {
  [ $# -eq 2 ] || usage
  local dir
  dir=$(realpath -m "$1")
  load_env "$dir"
  parse_host "$2"
  [ ! -f "$dir/h$H/sshd.pid" ] || die "sshd of h$H is running (pid $(cat "$dir/h$H/sshd.pid"))"
  start_sshd "$dir" "$H"
  wait_sshd "$dir" "$H" "$(host_var ADDR)"
}

cmd_link() {
  [ $# -eq 3 ] || usage
  local dir
  dir=$(realpath -m "$1")
  load_env "$dir"
  parse_host "$2"
  case $3 in
    up | down) ip -n "$(host_var NETNS)" link set eth0 "$3" ;;
    *) usage ;;
  esac
}

cmd_sshfs() {
  [ $# -ge 3 ] && [ $# -le 5 ] || usage
  local dir mp remote opts pid n
  dir=$(realpath -m "$1")
  load_env "$dir"
  parse_host "$2"
  mp=$(realpath -m "$3")
  remote=${4:-$(host_var ROOT)}
  opts=${5:-dir_cache=no,attr_timeout=1,entry_timeout=1,negative_timeout=0}
  mkdir -p "$mp"
  sshfs -f -o "IdentityFile=$dir/client_key,UserKnownHostsFile=$KNOWN_HOSTS" \
    -o StrictHostKeyChecking=yes,BatchMode=yes,IdentitiesOnly=yes -o "$opts" \
    "root@$(host_var ADDR):$remote" "$mp" </dev/null >>"$dir/sshfs.log" 2>&1 &
  pid=$!
  echo "$pid $mp" >>"$dir/sshfs.list"
  for n in $(seq 100); do
    mountpoint -q "$mp" && return 0
    kill -0 "$pid" 2>/dev/null || die "sshfs of h$H on $mp failed: $(cat "$dir/sshfs.log")"
    sleep 0.1
  done
  die "sshfs of h$H on $mp not mounted after 10 s"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
  up) cmd_up "$@" ;;
  down) cmd_down "$@" ;;
  exec) cmd_exec "$@" ;;
  stop) cmd_stop "$@" ;;
  start) cmd_start "$@" ;;
  link) cmd_link "$@" ;;
  sshfs) cmd_sshfs "$@" ;;
  *) usage ;;
esac
