#!/usr/bin/env bash
# CSV read benchmark: floe's read_csv against DuckDB's on a generated file of about 1 GB
# (12M rows of bigint, double, text, date, timestamp, boolean), every value read, on the same
# thread count. Prints a markdown table with the ratio floe/DuckDB.
#
# usage: bench/read_csv.sh [--rows N] [--threads T] [--runs R]
# env:   FLOE (the binary; default $BUILD_DIR/src/floe/cli/floe, BUILD_DIR default build)
#        BENCH_DATA_DIR (where the generated file is kept; default $BUILD_DIR/bench-data)
# Needs node and the npm peers (scripts/install-deps). Not part of ctest.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
floe="${FLOE:-$build/src/floe/cli/floe}"
data="${BENCH_DATA_DIR:-$build/bench-data}"
if [ ! -x "$floe" ]; then
  echo "read_csv.sh: $floe not found; build first (make build) or set FLOE" >&2
  exit 2
fi
exec node "$root/bench/read_csv.mjs" "$floe" "$data" "$@"
