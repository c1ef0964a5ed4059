#!/usr/bin/env bash
# The first run on a fresh machine (docs/PERFORMANCE.md, "The first run"):
# runs one of the README's commands in a clean Debian 12 root, as a newcomer would, and
# prints every line of its output with the seconds since the start, then its wall and CPU
# time. Run as root on Debian 12, with debootstrap and a reachable Debian mirror.
# Usage: bench/first_run.sh [COMMAND]   (default: bash scripts/run-example.sh)
#   CACHE (default /var/tmp/webdb-first-run) keeps the debootstrapped root between runs;
#   each run copies it, so every run starts from the same clean root. The checkout's
#   HEAD (committed files only) goes to /root/webdb in the copy.
set -euo pipefail
cd "$(dirname "$0")/.."
command=${1:-bash scripts/run-example.sh}
cache=${CACHE:-/var/tmp/webdb-first-run}
pristine=$cache/pristine
root=$cache/run
if [ ! -x "$pristine/bin/bash" ]; then
  rm -rf "$pristine"
  debootstrap --variant=minbase bookworm "$pristine" http://deb.debian.org/debian >&2
fi
# What a previous run left mounted below its root (the test hosts' network namespaces,
# bound at run/netns inside it) would make rm fail: unmount it, the deepest first.
awk -v root="$root" 'index($5, root "/") == 1 || $5 == root { print $5 }' /proc/self/mountinfo |
  sort -r | while IFS= read -r mounted; do umount -l "$mounted"; done
rm -rf "$root"
cp -a "$pristine" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/root/webdb"
git archive HEAD | tar -x -C "$root/root/webdb"
# `../shared` beside the checkout, as CI has it (the original's anchors, the specs).
[ -d ../shared ] && cp -a ../shared "$root/root/shared"
# The root a mount of its own, as / is on a machine: the test hosts make it a slave
# mount (`mount --make-rslave /`), which fails on a directory that is not a mount.
mount --bind "$root" "$root"
trap 'umount -lR "$root"' EXIT
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
set +e
/usr/bin/time -o "$cache/time" -f "wall %e s, CPU %U s user + %S s system" \
  chroot "$root" /bin/bash -c "cd /root/webdb && $command" 2>&1 |
  while IFS= read -r line; do
    printf '%7.1f %s\n' "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
      "$line"
  done
rc=${PIPESTATUS[0]}
echo "exit $rc; $(cat "$cache/time"); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$rc"
