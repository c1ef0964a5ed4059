# Sourced by bench/*.sh: the build a benchmark measures, and the one way it gets built.
# BUILD defaults to build-pgo/: the tools and benchmarks optimized with the profiles of a
# training run, as `scripts/setup.sh --pgo` makes them (docs/PERFORMANCE.md). A missing
# tool is built there by `scripts/setup.sh --pgo`; a BUILD given by the caller (the tests
# pass theirs) is used as it is, and a missing tool in it is an error.
bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_default_build=$bench_root/build-pgo
BUILD=${BUILD:-$bench_default_build}

# bench_build FILE...: FILEs under $BUILD (tools/webdb, bench/webdb_bench) must be built.
bench_build() {
  local f missing=()
  for f in "$@"; do [ -x "$BUILD/$f" ] || missing+=("$BUILD/$f"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$BUILD" != "$bench_default_build" ]; then
    echo "not built: ${missing[*]}" >&2
    exit 2
  fi
  "$bench_root/scripts/setup.sh" --pgo >&2
}
