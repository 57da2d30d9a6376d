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

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
exec node "$root/bench/parquet_scan.mjs" "$floe" "$data" "$@"
