#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with ASan+UBSan (clang 14) into build-fuzz/ and
# runs each for SECONDS, starting from a scratch copy of its seed corpus fuzz/corpus/<name>/
# (new inputs stay in the scratch copy; the repository's corpus is not flooded).
# Prints execs, coverage (libFuzzer's cov and ft) and crashes per target; a crashing
# input is saved as build-fuzz/crashes/<target>-crash-<sha1> and the script exits 1.
# See docs/RELIABILITY.md, "Fuzzing".
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (run as root on Debian 12)
#        scripts/fuzz.sh --seeds                  rewrite fuzz/corpus/ from fuzz_seed_corpus
#   SECONDS  per target, default 60
#   TARGET   only these (names of fuzz/*_fuzz.cc without .cc), default all
# Environment: FUZZ_FLAGS adds libFuzzer flags (e.g. "-max_len=65536").
set -euo pipefail
cd "$(dirname "$0")/.."

seeds=false
if [ "${1:-}" = "--seeds" ]; then
  seeds=true
  shift
fi
seconds=60
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi

scripts/setup.sh --clang --install-only
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWEBDB_SANITIZE=address,undefined -DWEBDB_BUILD_FUZZ=ON -DWEBDB_BUILD_TESTS=OFF \
  "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target fuzz

if $seeds; then
  tmp=$(mktemp -d /tmp/webdb-seeds.XXXXXX)
  build-fuzz/fuzz/fuzz_seed_corpus "$tmp"
  rm -rf fuzz/corpus
  mv "$tmp" fuzz/corpus
  du -sh fuzz/corpus/*
  exit 0
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*_fuzz.cc; do targets+=("$(basename "$f" .cc)"); done
fi

work=$(mktemp -d /tmp/webdb-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
crashes=build-fuzz/crashes
mkdir -p "$crashes"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

printf '%-22s %10s %8s %8s %7s %8s\n' target execs cov ft corpus crashes
found_files=()
for t in "${targets[@]}"; do
  [ -x "build-fuzz/fuzz/$t" ] || { echo "no fuzz target $t" >&2; exit 2; }
  name=${t%_fuzz}
  [ -d "fuzz/corpus/$name" ] || { echo "no seed corpus fuzz/corpus/$name" >&2; exit 2; }
  mkdir -p "$work/$t"
  cp -r "fuzz/corpus/$name/." "$work/$t/"
  log="$work/$t.log"
  before=$(find "$crashes" -name "$t-*" | sort)
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
  # libFuzzer's exit code is not needed: the saved artifacts say what it found.
  # shellcheck disable=SC2086
  "build-fuzz/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 -timeout=30 \
    -rss_limit_mb=2048 -artifact_prefix="$crashes/$t-" "${dict[@]}" ${FUZZ_FLAGS:-} \
    "$work/$t" >"$log" 2>&1 || true
  new=$(comm -13 <(echo "$before") <(find "$crashes" -name "$t-*" | sort))
  found=$(grep -c . <<<"$new" || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corpus=$(find "$work/$t" -type f | wc -l)
  printf '%-22s %10s %8s %8s %7s %8s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$found"
  if [ "$found" -gt 0 ] || ! grep -q '^stat::number_of_executed_units' "$log"; then
    found_files+=("$t: ${new:-no final stats, see below}")
    grep -E 'ERROR|fuzz property failed|runtime error|SUMMARY|Test unit written' "$log" |
      head -20 | sed 's/^/    /'
  fi
done
if [ ${#found_files[@]} -gt 0 ]; then
  echo "crashes (reproduce with build-fuzz/fuzz/TARGET FILE):" >&2
  printf '  %s\n' "${found_files[@]}" >&2
  exit 1
fi
