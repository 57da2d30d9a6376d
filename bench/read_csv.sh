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

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
exec node "$root/bench/read_csv.mjs" "$floe" "$data" "$@"
