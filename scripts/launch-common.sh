# shellcheck shell=bash
# Shared by scripts/launch-*.sh (sourced, not run): the distwriter binary and what those
# scripts read from a cluster config. They never parse the config themselves: distwriter
# reads it (`distwriter machines`, `distwriter config --get KEY`) and names its errors.

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

# Prints one line per writer, tab-separated: INDEX MACHINE SCHEME HOST PORT USER ROOT
# (`distwriter machines`, docs/DISTRIBUTED.md); fails naming the config's error.
writer_machines() {
  "$1" machines --config "$2"
}
