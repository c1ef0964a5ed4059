# shellcheck shell=bash
# Shared by scripts/launch-*.sh (sourced, not run): the distwriter binary and what those
# scripts read from a cluster config (config/README.md). The config is parsed here only
# as far as the checks need; distwriter itself validates it fully.

usage_from() {
  sed -n '3p' "$1" | sed 's/^# //' >&2
  exit 2
}

# The config's absolute path: writers on other machines read the same path.
config_path() {
  [ -f "$1" ] || { echo "launch: no config file $1" >&2; exit 2; }
  realpath "$1"
}

# $DISTWRITER, else the checkout's build/tools/distwriter.
distwriter_binary() {
  local bin=${DISTWRITER:-$1/../build/tools/distwriter}
  [ -x "$bin" ] || { echo "launch: no distwriter binary at $bin (set DISTWRITER)" >&2; exit 2; }
  realpath "$bin"
}

# Prints the value of a top-level key (empty if absent).
config_value() {
  awk -v want="$2" '
    { sub(/#.*/, ""); gsub(/^[ \t]+|[ \t]+$/, "") }
    /^\[/ { exit }
    index($0, "=") { k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
                     gsub(/[ \t]+$/, "", k); gsub(/^[ \t]+/, "", v); if (k == want) print v }
  ' "$1"
}

# A path from the config, made absolute relative to the config's directory.
relative_to_config() {
  case $2 in
    /*) printf '%s\n' "$2" ;;
    *) printf '%s/%s\n' "$(dirname "$1")" "$2" ;;
  esac
}

# Prints "I MACHINE LOCATION" for every [writer.I], in index order; fails if there is none
# or a writer's machine has no location.
writer_machines() {
  local out
  out=$(awk '
    { sub(/#.*/, ""); gsub(/^[ \t]+|[ \t]+$/, "") }
    /^\[.*\]$/ { section = substr($0, 2, length($0) - 2); next }
    index($0, "=") { k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
                     gsub(/[ \t]+$/, "", k); gsub(/^[ \t]+/, "", v)
                     if (section ~ /^machine\./ && k == "location") loc[substr(section, 9)] = v
                     if (section ~ /^writer\./ && k == "machine") w[substr(section, 8)] = v }
    END { for (i in w) print i, w[i], loc[w[i]] }
  ' "$1" | sort -n)
  [ -n "$out" ] || { echo "launch: $1 names no [writer.I] machine" >&2; return 1; }
  if grep -qvE '^[0-9]+ [^ ]+ [^ ]+$' <<<"$out"; then
    echo "launch: $1: a writer's machine has no location:" >&2
    grep -vE '^[0-9]+ [^ ]+ [^ ]+$' <<<"$out" >&2
    return 1
  fi
  printf '%s\n' "$out"
}
