#!/usr/bin/env bash
# Sets up everything on a fresh Debian 12 machine (as root) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure --timeout 900 -j1 "$@"
