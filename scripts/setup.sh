#!/usr/bin/env bash
# Installs the Debian packages the project needs and builds it into build/, optimized
# with the profiles of a training run (scripts/profile.sh, which builds build-profile/).
# Usage: scripts/setup.sh [--clang] [--install-only] [TARGET...]
#   (run as root on Debian 12)
#   --clang         also install clang 14 with its libFuzzer, ASan, UBSan and TSan runtimes
#                   (scripts/fuzz.sh, scripts/sanitize.sh)
#   --install-only  install the packages, build nothing
#   TARGET          build only these CMake targets (default: everything, tests and
#                   benchmarks included)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config git
  libboost-program-options-dev
  libssh-dev libssl-dev libspdlog-dev libfmt-dev
  libsimdjson-dev libexpected-dev libisal-dev libxxhash-dev catch2
  zlib1g-dev liburiparser-dev libidn2-dev libpsl-dev libre2-dev
  libgumbo-dev libboost1.74-doc  # tests: the reference HTML parser and pages to compare on
  python3 wget time  # time: /usr/bin/time, for the benchmarks (bench/) and their tests
  openjdk-17-jre-headless  # bench/rank_bench.sh runs the original's link analysis (shared/anchors)
  openssh-server openssh-client sshfs fuse3 iproute2 procps psmisc
  slurm-wlm munge  # tests: a real Slurm (scripts/slurmtest.sh)
)
install_only=false
while [ $# -gt 0 ]; do
  case "$1" in
    --clang) packages+=(clang-14 libclang-rt-14-dev) ;;
    --install-only) install_only=true ;;
    -*) echo "setup.sh: unknown option $1 (bench/ is built with everything else)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
targets=()
for t in "$@"; do targets+=(--target "$t"); done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

$install_only && exit 0
# Profile-guided optimization: an instrumented build trains on a synthetic crawl first.
scripts/profile.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWEBDB_PROFILE_USE="$PWD/build-profile/data" >/dev/null
cmake --build build -j "$(nproc)" "${targets[@]}"
