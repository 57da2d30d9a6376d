#!/usr/bin/env bash
# Parquet scan benchmark: floe's `parquet scan` against DuckDB on a 10M-row file
# (bigint, double, varchar with 100k distinct values, date, timestamp, decimal(18,2),
# boolean; zstd and snappy; 1M-row row groups), per column and for all columns, on the
# same thread count. Prints a markdown table with the ratio floe/DuckDB.
#
# usage: bench/parquet_scan.sh [--rows N] [--threads T] [--runs R]
# env:   FLOE (the binary; default $BUILD_DIR/src/floe/cli/floe, BUILD_DIR default build)
#        BENCH_DATA_DIR (where the generated files are kept; default $BUILD_DIR/bench-data)
# Needs node and the npm peers (scripts/install-deps). Not part of ctest.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
floe="${FLOE:-$build/src/floe/cli/floe}"
data="${BENCH_DATA_DIR:-$build/bench-data}"
if [ ! -x "$floe" ]; then
  echo "parquet_scan.sh: $floe not found; build first (make build) or set FLOE" >&2
  exit 2
fi
exec node "$root/bench/parquet_scan.mjs" "$floe" "$data" "$@"
