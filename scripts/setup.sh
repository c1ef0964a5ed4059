#!/usr/bin/env bash
# Installs the Debian packages the project needs and builds it into build/.
# Usage: scripts/setup.sh [--bench]   (run as root on Debian 12)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config git
  libboost-filesystem-dev libboost-program-options-dev
  libssh-dev libssl-dev libspdlog-dev libfmt-dev
  libsimdjson-dev libexpected-dev catch2
  openssh-server openssh-client sshfs fuse3 iproute2 procps psmisc
)
if [ "${1:-}" = "--bench" ]; then packages+=(libbenchmark-dev time); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

bench=OFF
[ "${1:-}" = "--bench" ] && bench=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEBDB_BUILD_BENCH=$bench >/dev/null
cmake --build build -j "$(nproc)"
