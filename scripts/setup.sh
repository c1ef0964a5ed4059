#!/usr/bin/env bash
# Installs the Debian packages the project needs and builds it into build/ (a plain
# optimized build: what the example, the tests and the Debian package use).
# Usage: scripts/setup.sh [--pgo] [--clang] [--install-only] [TARGET...]
#   (run as root on Debian 12)
#   --pgo           build build-pgo/ instead: the tools and the benchmarks, optimized with
#                   the profiles of a training run (scripts/profile.sh, which builds
#                   build-profile/ first); what bench/ measures (docs/PERFORMANCE.md)
#   --clang         also install clang 14 with its libFuzzer, ASan, UBSan and TSan runtimes
#                   (scripts/fuzz.sh, scripts/sanitize.sh)
#   --install-only  install the packages, build nothing
#   TARGET          build only these CMake targets (default: everything, tests and
#                   benchmarks included; with --pgo: the tools and the benchmarks). Unless
#                   one is a test binary (*_tests), build/ is configured without the tests
#                   and without debug info (CMAKE_BUILD_TYPE=Release: the same -O2), and
#                   only the packages of the build and the example are installed, not
#                   those the tests and benchmarks alone need (see test_packages)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config git
  libssh-dev libssl-dev libspdlog-dev libfmt-dev
  libsimdjson-dev libexpected-dev libisal-dev libxxhash-dev
  zlib1g-dev libbrotli-dev libzstd-dev liburiparser-dev libidn2-dev libpsl-dev libre2-dev
  libboost1.74-doc  # the pages scripts/run-example.sh crawls (and the tests compare on)
  python3 wget openssh-client iproute2 procps psmisc
)
# What only the tests and the benchmarks need: left out of a first run that builds only
# the tools (scripts/run-example.sh).
test_packages=(
  catch2 libgumbo-dev  # the test suite; gumbo: the reference HTML parser
  groff-base man-db  # tests: the man pages are formatted and read with man -l
  file  # tests: CPack's Debian generator finds the libraries the binaries need
  jq  # bench/barrier_bench.sh reads the writers' JSON reports (and its test)
  time  # /usr/bin/time, for the benchmarks (bench/) and their tests
  openjdk-17-jre-headless  # bench/rank_bench.sh runs the original's link analysis (shared/anchors)
  debootstrap  # bench/first_run.sh: a clean Debian 12 root
  openssh-server sshfs fuse3  # test hosts (scripts/testhosts.sh), NutchFS over SSH/SFTP and NFS
  slurm-wlm munge  # tests: a real Slurm (scripts/slurmtest.sh)
  strace  # tests: webdb update|inject --config write no call file (crawl_commands_test)
)
install_only=false
pgo=false
while [ $# -gt 0 ]; do
  case "$1" in
    --pgo) pgo=true ;;
    --clang) packages+=(clang-14 libclang-rt-14-dev) ;;
    --install-only) install_only=true ;;
    -*) echo "setup.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
targets=()
tests=ON
[ $# -gt 0 ] && tests=OFF
for t in "$@"; do
  targets+=(--target "$t")
  case "$t" in *_tests) tests=ON ;; esac
done
if $pgo || [ $tests = ON ]; then packages+=("${test_packages[@]}"); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # --force-unsafe-io: dpkg skips its fsync per unpacked file, which made unpacking the
  # Boost docs the example serves take minutes on a fresh machine; a crash mid-install
  # only means running this again.
  apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io \
    "${missing[@]}"
fi

$install_only && exit 0
if ! $pgo; then
  # WEBDB_PROFILE_USE is cleared: a build/ configured with profiles before they became
  # opt-in builds without them from now on.
  build_type=RelWithDebInfo
  [ $tests = ON ] || build_type=Release
  cmake -S . -B build -DCMAKE_BUILD_TYPE=$build_type -DWEBDB_BUILD_TESTS=$tests \
    -DWEBDB_PROFILE_USE= >/dev/null
  cmake --build build -j "$(nproc)" "${targets[@]}"
  exit 0
fi
# Profile-guided optimization: an instrumented build trains on a synthetic crawl first.
scripts/profile.sh
[ ${#targets[@]} -gt 0 ] || targets=(--target webdb_tool distwriter_tool nutchfs_tool benchmarks)
cmake -S . -B build-pgo -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEBDB_BUILD_TESTS=OFF \
  -DWEBDB_BUILD_BENCH=ON -DWEBDB_PROFILE_USE="$PWD/build-profile/data" >/dev/null
cmake --build build-pgo -j "$(nproc)" "${targets[@]}"
